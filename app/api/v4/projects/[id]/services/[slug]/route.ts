import { apiResource } from "@/lib/api/endpoint";
import { integrationEndpoints } from "@/lib/integrations/endpoints";

/** GitLab's older name of `/projects/:id/integrations/:slug`, which its API still serves. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/services/:slug", integrationEndpoints);
