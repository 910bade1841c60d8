import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { silenceInputOf, silenceParams } from "@/lib/alerts/silence-params";
import { deleteSilence, getSilence, serializeSilence, updateSilence, silenceEntity } from "@/lib/alerts/silences";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { ...projectPath, silence_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/silences/:silence_id", {
  GET: endpoint({
    response: okWith(silenceEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(serializeSilence(await getSilence(ctx, path.id, path.silence_id), ctx.now)),
  }),
  PUT: endpoint({
    response: okWith(silenceEntity),
    scopes: writeApiScopes,
    path,
    params: silenceParams,
    handle: async ({ ctx, path, params }) => json(serializeSilence(await updateSilence(ctx, path.id, path.silence_id, silenceInputOf(params)), ctx.now)),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteSilence(ctx, path.id, path.silence_id);
      return noContent();
    },
  }),
});
