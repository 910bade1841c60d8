import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import {
  getManageablePersonalAccessToken,
  revokePersonalAccessToken,
  serializePersonalAccessToken,
} from "@/lib/users/personal-access-tokens";

export const GET = apiRoute(
  { route: "/personal_access_tokens/:id", scopes: readApiScopes },
  async ({ ctx, url, params }) => {
    const { id } = parseParams({ id: positiveIntegerParam }, { ...readQuery(url), id: params.id });
    return json(serializePersonalAccessToken(await getManageablePersonalAccessToken(ctx, id), ctx.now));
  },
);

export const DELETE = apiRoute(
  { route: "/personal_access_tokens/:id", scopes: writeApiScopes },
  async ({ ctx, url, params }) => {
    const { id } = parseParams({ id: positiveIntegerParam }, { ...readQuery(url), id: params.id });
    await revokePersonalAccessToken(ctx, id);
    return noContent();
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH } from "@/lib/api/handler";
