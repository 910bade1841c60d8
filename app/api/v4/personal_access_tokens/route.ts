import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { booleanParam, paginationParams, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listPersonalAccessTokens, serializePersonalAccessToken } from "@/lib/users/personal-access-tokens";

export const GET = apiRoute({ route: "/personal_access_tokens", scopes: readApiScopes }, async ({ ctx, url }) => {
  const params = parseParams(
    {
      user_id: positiveIntegerParam.optional(),
      revoked: booleanParam.optional(),
      state: z.enum(["active", "inactive"]).optional(),
      search: z.string().optional(),
      ...paginationParams,
    },
    readQuery(url),
  );
  const page = pageRequest(params);
  const result = await listPersonalAccessTokens(
    ctx,
    { userId: params.user_id, revoked: params.revoked, state: params.state, search: params.search },
    page,
  );
  return paginated(url, page, {
    items: result.items.map((token) => serializePersonalAccessToken(token, ctx.now)),
    total: result.total,
  });
});

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
