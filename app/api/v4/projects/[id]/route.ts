import { apiRoute } from "@/lib/api/handler";
import { booleanParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getVisibleProject } from "@/lib/projects/projects";
import { serializeProject } from "@/lib/projects/serialize";

export const GET = apiRoute(
  { route: "/projects/:id", scopes: readApiScopes, allowAnonymous: true },
  async ({ ctx, url, params }) => {
    parseParams({ statistics: booleanParam.optional(), license: booleanParam.optional() }, readQuery(url));
    return json(serializeProject(await getVisibleProject(ctx, params.id!)));
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
