import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { dateParam, integerParam, paginationParams, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { addMember, listMembers } from "@/lib/projects/members";
import { serializeMember } from "@/lib/projects/serialize";

export const GET = apiRoute(
  { route: "/projects/:id/members", scopes: readApiScopes, allowAnonymous: true },
  async ({ ctx, url, params }) => {
    const query = parseParams({ ...paginationParams }, readQuery(url));
    const page = pageRequest(query);
    const result = await listMembers(ctx, params.id!, page);
    return paginated(url, page, { items: result.items.map(serializeMember), total: result.total });
  },
);

export const POST = apiRoute(
  { route: "/projects/:id/members", scopes: writeApiScopes },
  async ({ ctx, request, url, params }) => {
    const input = parseParams(
      { user_id: positiveIntegerParam, access_level: integerParam, expires_at: dateParam.nullable().optional() },
      { ...readQuery(url), ...(await readBody(request)) },
    );
    const member = await addMember(ctx, params.id!, {
      userId: input.user_id,
      accessLevel: input.access_level,
      expiresAt: input.expires_at,
    });
    return created(serializeMember(member));
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
