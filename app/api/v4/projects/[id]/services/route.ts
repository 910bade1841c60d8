import { apiResource } from "@/lib/api/endpoint";
import { listIntegrationsEndpoint } from "@/lib/integrations/endpoints";

/** GitLab's older name of `/projects/:id/integrations`, which its API still serves. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/services", { GET: listIntegrationsEndpoint });
