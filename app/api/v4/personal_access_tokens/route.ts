import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, positiveIntegerParam, searchParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listPersonalAccessTokens, serializePersonalAccessToken, personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";
import { listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens", {
  GET: endpoint({
    response: listOf(personalAccessTokenEntity),
    scopes: readApiScopes,
    paginated: true,
    params: {
      user_id: positiveIntegerParam.optional(),
      revoked: booleanParam.optional(),
      state: z.enum(["active", "inactive"]).optional(),
      search: searchParam.optional(),
    },
    handle: async ({ ctx, url, params, page }) => {
      const result = await listPersonalAccessTokens(
        ctx,
        { userId: params.user_id, revoked: params.revoked, state: params.state, search: params.search },
        page,
      );
      return paginated(url, page, {
        ...result,
        items: result.items.map((token) => serializePersonalAccessToken(token, ctx.now)),
      });
    },
  }),
});
