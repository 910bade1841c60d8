import { apiResource } from "@/lib/api/endpoint";
import { integrationEndpoints } from "@/lib/integrations/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/integrations/:slug", integrationEndpoints);
