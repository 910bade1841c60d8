import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json, noContent } from "@/lib/api/respond";
import {
  getCurrentPersonalAccessToken,
  revokeCurrentPersonalAccessToken,
  serializePersonalAccessToken,
} from "@/lib/users/personal-access-tokens";
import { noContentAnswer, okWith } from "@/lib/api/responses";
import { personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";

/** Any token may read or revoke itself, whatever its scopes (GitLab allows every scope here). */
const anyScope = [] as const;

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/self", {
  GET: endpoint({
    response: okWith(personalAccessTokenEntity),
    scopes: anyScope,
    handle: async ({ ctx }) => json(serializePersonalAccessToken(await getCurrentPersonalAccessToken(ctx), ctx.now)),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: anyScope,
    handle: async ({ ctx }) => {
      await revokeCurrentPersonalAccessToken(ctx);
      return noContent();
    },
  }),
});
