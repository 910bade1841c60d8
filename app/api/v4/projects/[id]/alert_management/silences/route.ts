import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { silenceInputOf, silenceParams } from "@/lib/alerts/silence-params";
import { createSilence, listSilences, serializeSilence, silenceEntity } from "@/lib/alerts/silences";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/silences", {
  GET: endpoint({
    response: listOf(silenceEntity),
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    handle: async ({ ctx, url, path, page }) => {
      const list = await listSilences(ctx, path.id, page);
      return paginated(url, page, { ...list, items: list.items.map((silence) => serializeSilence(silence, ctx.now)) });
    },
  }),
  POST: endpoint({
    response: createdWith(silenceEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: silenceParams,
    handle: async ({ ctx, path, params }) => created(serializeSilence(await createSilence(ctx, path.id, silenceInputOf(params)), ctx.now)),
  }),
});
