import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { sendTestAlert, testAlertAnswerEntity } from "@/lib/alerts/test-alert";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/integrations/:integration_id/test_alert", {
  POST: endpoint({
    response: { status: [200, 201, 202], body: testAlertAnswerEntity },
    scopes: writeApiScopes,
    path: { ...projectPath, integration_id: idSegment },
    params: { payload: z.record(z.string(), z.unknown()) },
    handle: async ({ ctx, path, params }) => {
      const answer = await sendTestAlert(ctx, path.id, path.integration_id, params.payload);
      return json(answer.body, answer.status, answer.headers);
    },
  }),
});
