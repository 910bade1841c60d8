import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { booleanParam, paginationParams } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createIssue, listIssues } from "@/lib/issues/issues";
import { serializeIssue } from "@/lib/issues/serialize";

const route = "/projects/:id/issues";

export const GET = apiRoute({ route, scopes: readApiScopes, allowAnonymous: true }, async ({ ctx, url, params }) => {
  const query = parseParams({ state: z.enum(["opened", "closed", "all"]).optional(), ...paginationParams }, readQuery(url));
  const page = pageRequest(query);
  const result = await listIssues(ctx, params.id!, { state: query.state }, page);
  return paginated(url, page, { items: result.items.map(serializeIssue), total: result.total });
});

export const POST = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { title: z.string(), description: z.string().nullable().optional(), confidential: booleanParam.optional() },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  return created(serializeIssue(await createIssue(ctx, params.id!, input)));
});

export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
