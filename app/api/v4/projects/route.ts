import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { booleanParam, paginationParams } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { createProject, listProjects, projectVisibilities } from "@/lib/projects/projects";
import { serializeProject } from "@/lib/projects/serialize";

export const GET = apiRoute({ route: "/projects", scopes: readApiScopes, allowAnonymous: true }, async ({ ctx, url }) => {
  const params = parseParams(
    {
      membership: booleanParam.optional(),
      owned: booleanParam.optional(),
      visibility: z.enum(projectVisibilities).optional(),
      search: z.string().optional(),
      order_by: z.enum(["id", "name", "path", "created_at", "updated_at", "last_activity_at"]).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
      simple: booleanParam.optional(),
      ...paginationParams,
    },
    readQuery(url),
  );
  const page = pageRequest(params);
  const result = await listProjects(
    ctx,
    {
      membership: params.membership,
      owned: params.owned,
      visibility: params.visibility,
      search: params.search,
      orderBy: params.order_by,
      sort: params.sort,
    },
    page,
  );
  return paginated(url, page, { items: result.items.map(serializeProject), total: result.total });
});

export const POST = apiRoute({ route: "/projects", scopes: writeApiScopes }, async ({ ctx, request, url }) => {
  const params = parseParams(
    {
      name: z.string().optional(),
      path: z.string().optional(),
      description: z.string().max(2000).optional(),
      visibility: z.enum(projectVisibilities).optional(),
    },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  if (params.name === undefined && params.path === undefined) {
    throw new ParameterError("name, path", "are missing, at least one parameter must be provided");
  }
  return created(serializeProject(await createProject(ctx, params)));
});

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
