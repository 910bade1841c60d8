import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { booleanParam, paginationParams } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, paginated } from "@/lib/api/respond";
import { readUserScopes, writeApiScopes } from "@/lib/api/scopes";
import { serializeUser } from "@/lib/users/serialize";
import { canSeePrivateFields, createUserAsAdmin, listUsers, requireAdmin } from "@/lib/users/users";

export const GET = apiRoute({ route: "/users", scopes: readUserScopes, allowAnonymous: true }, async ({ ctx, url }) => {
  const params = parseParams({ username: z.string().optional(), search: z.string().optional(), ...paginationParams }, readQuery(url));
  const page = pageRequest(params);
  const result = await listUsers(ctx, { username: params.username, search: params.search }, page);
  return paginated(url, page, {
    items: result.items.map((user) => serializeUser(user, { includePrivate: canSeePrivateFields(ctx, user) })),
    total: result.total,
  });
});

export const POST = apiRoute({ route: "/users", scopes: writeApiScopes }, async ({ ctx, request, url }) => {
  // GitLab refuses non-admins before looking at the parameters.
  requireAdmin(ctx);
  const params = parseParams(
    {
      email: z.string(),
      username: z.string(),
      name: z.string(),
      password: z.string(),
      skip_confirmation: booleanParam.optional(),
      admin: booleanParam.optional(),
    },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  const user = await createUserAsAdmin(ctx, {
    email: params.email,
    username: params.username,
    name: params.name,
    password: params.password,
    isAdmin: params.admin ?? false,
  });
  return created(serializeUser(user, { includePrivate: true }));
});

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
