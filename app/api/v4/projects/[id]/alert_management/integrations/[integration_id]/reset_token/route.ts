import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { resetIntegrationToken, serializeIntegration, alertIntegrationEntity } from "@/lib/alerts/integrations";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/integrations/:integration_id/reset_token", {
  POST: endpoint({
    response: okWith(alertIntegrationEntity),
    scopes: writeApiScopes,
    path: { ...projectPath, integration_id: idSegment },
    handle: async ({ ctx, path }) => json(await serializeIntegration(ctx, await resetIntegrationToken(ctx, path.id, path.integration_id))),
  }),
});
