import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { resendHookLog, hookResendEntity } from "@/lib/webhooks/logs";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks/:hook_id/events/:hook_log_id/resend", {
  POST: endpoint({
    response: createdWith(hookResendEntity),
    scopes: writeApiScopes,
    path: { ...projectPath, hook_id: idSegment, hook_log_id: idSegment },
    handle: async ({ ctx, path }) => {
      const result = await resendHookLog(ctx, path.id, path.hook_id, path.hook_log_id);
      return json({ response_status: result.responseStatus }, 201);
    },
  }),
});
