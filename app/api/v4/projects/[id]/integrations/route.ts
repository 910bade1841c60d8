import { apiResource } from "@/lib/api/endpoint";
import { listIntegrationsEndpoint } from "@/lib/integrations/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/integrations", { GET: listIntegrationsEndpoint });
