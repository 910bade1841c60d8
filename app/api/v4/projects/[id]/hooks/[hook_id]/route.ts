import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { deleteHook, getHook, serializeHook, updateHook, projectHookEntity } from "@/lib/webhooks/hooks";
import { hookAttributesOf, hookParams } from "@/lib/webhooks/params";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { ...projectPath, hook_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks/:hook_id", {
  GET: endpoint({
    response: okWith(projectHookEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(await serializeHook(ctx, await getHook(ctx, path.id, path.hook_id))),
  }),
  PUT: endpoint({
    response: okWith(projectHookEntity),
    scopes: writeApiScopes,
    path,
    params: hookParams,
    handle: async ({ ctx, path, params }) => json(await serializeHook(ctx, await updateHook(ctx, path.id, path.hook_id, hookAttributesOf(params)))),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteHook(ctx, path.id, path.hook_id);
      return noContent();
    },
  }),
});
