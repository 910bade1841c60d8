import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { serializeUser } from "@/lib/users/serialize";
import { canSeePrivateFields, getUser } from "@/lib/users/users";

export const GET = apiRoute(
  { route: "/users/:id", scopes: readUserScopes, allowAnonymous: true },
  async ({ ctx, url, params }) => {
    const { id } = parseParams({ id: positiveIntegerParam }, { ...readQuery(url), id: params.id });
    const user = await getUser(ctx, id);
    return json(serializeUser(user, { includePrivate: canSeePrivateFields(ctx, user) }));
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
