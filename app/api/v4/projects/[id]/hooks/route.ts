import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createHook, listHooks, serializeHook, projectHookEntity } from "@/lib/webhooks/hooks";
import { hookAttributesOf, hookParams } from "@/lib/webhooks/params";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks", {
  GET: endpoint({
    response: listOf(projectHookEntity),
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    handle: async ({ ctx, url, path, page }) => {
      const list = await listHooks(ctx, path.id, page);
      return paginated(url, page, { ...list, items: await Promise.all(list.items.map((hook) => serializeHook(ctx, hook))) });
    },
  }),
  POST: endpoint({
    response: createdWith(projectHookEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: hookParams,
    handle: async ({ ctx, path, params }) => created(await serializeHook(ctx, await createHook(ctx, path.id, hookAttributesOf(params)))),
  }),
});
