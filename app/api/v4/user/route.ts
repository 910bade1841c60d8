import { apiRoute } from "@/lib/api/handler";
import { readQuery, parseParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { currentUser } from "@/lib/users/users";
import { serializeUser } from "@/lib/users/serialize";

export const GET = apiRoute({ route: "/user", scopes: readUserScopes }, async ({ ctx, url }) => {
  parseParams({}, readQuery(url));
  return json(serializeUser(currentUser(ctx), { includePrivate: true }));
});

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
