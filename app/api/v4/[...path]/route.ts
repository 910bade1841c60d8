import { apiRoute } from "@/lib/api/handler";
import { RouteNotFoundError } from "@/lib/errors";

/** Any path under /api/v4 that no endpoint serves: GitLab's JSON 404, whatever the method. */
const notFound = apiRoute({ route: "/*", scopes: [], allowAnonymous: true }, async () => {
  throw new RouteNotFoundError();
});

export {
  notFound as GET,
  notFound as HEAD,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as OPTIONS,
};
