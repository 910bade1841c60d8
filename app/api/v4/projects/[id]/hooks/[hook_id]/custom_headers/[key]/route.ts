import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { noContent } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { deleteCustomHeader, setCustomHeader } from "@/lib/webhooks/hooks";
import { noContentAnswer } from "@/lib/api/responses";

const path = { ...projectPath, hook_id: idSegment, key: z.string().max(255) };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks/:hook_id/custom_headers/:key", {
  PUT: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    params: { value: z.string() },
    handle: async ({ ctx, path, params }) => {
      await setCustomHeader(ctx, path.id, path.hook_id, { key: path.key, value: params.value });
      return noContent();
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteCustomHeader(ctx, path.id, path.hook_id, path.key);
      return noContent();
    },
  }),
});
