import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { resetIntegrationToken, serializeIntegration } from "@/lib/alerts/integrations";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/integrations/:integration_id/reset_token", {
  POST: endpoint({
    scopes: writeApiScopes,
    path: { ...projectPath, integration_id: idSegment },
    handle: async ({ ctx, path }) => json(await serializeIntegration(ctx, await resetIntegrationToken(ctx, path.id, path.integration_id))),
  }),
});
