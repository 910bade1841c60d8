import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json, noContent } from "@/lib/api/respond";
import {
  getCurrentPersonalAccessToken,
  revokeCurrentPersonalAccessToken,
  serializePersonalAccessToken,
} from "@/lib/users/personal-access-tokens";

/** Any token may read or revoke itself, whatever its scopes (GitLab allows every scope here). */
const anyScope = [] as const;

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/self", {
  GET: endpoint({
    scopes: anyScope,
    handle: async ({ ctx }) => json(serializePersonalAccessToken(await getCurrentPersonalAccessToken(ctx), ctx.now)),
  }),
  DELETE: endpoint({
    scopes: anyScope,
    handle: async ({ ctx }) => {
      await revokeCurrentPersonalAccessToken(ctx);
      return noContent();
    },
  }),
});
