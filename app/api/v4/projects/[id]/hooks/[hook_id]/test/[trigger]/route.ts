import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { testHook, testTriggers } from "@/lib/webhooks/test-hooks";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks/:hook_id/test/:trigger", {
  POST: endpoint({
    response: createdWith(z.strictObject({ message: z.literal("201 Created") })),
    scopes: writeApiScopes,
    path: { ...projectPath, hook_id: idSegment, trigger: z.enum(testTriggers) },
    handle: async ({ ctx, path }) => {
      await testHook(ctx, path.id, path.hook_id, path.trigger);
      return json({ message: "201 Created" }, 201);
    },
  }),
});
