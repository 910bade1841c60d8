import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import {
  getManageablePersonalAccessToken,
  revokePersonalAccessToken,
  serializePersonalAccessToken,
} from "@/lib/users/personal-access-tokens";
import { noContentAnswer, okWith } from "@/lib/api/responses";
import { personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";

const path = { id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/:id", {
  GET: endpoint({
    response: okWith(personalAccessTokenEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(serializePersonalAccessToken(await getManageablePersonalAccessToken(ctx, path.id), ctx.now)),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await revokePersonalAccessToken(ctx, path.id);
      return noContent();
    },
  }),
});
