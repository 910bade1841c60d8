import { apiRoute } from "@/lib/api/handler";
import { integerParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { getMember, removeMember, updateMember } from "@/lib/projects/members";
import { serializeMember } from "@/lib/projects/serialize";

export const GET = apiRoute(
  { route: "/projects/:id/members/:user_id", scopes: readApiScopes, allowAnonymous: true },
  async ({ ctx, url, params }) => {
    const { user_id } = parseParams({ user_id: positiveIntegerParam }, { ...readQuery(url), user_id: params.user_id });
    return json(serializeMember(await getMember(ctx, params.id!, user_id)));
  },
);

export const PUT = apiRoute(
  { route: "/projects/:id/members/:user_id", scopes: writeApiScopes },
  async ({ ctx, request, url, params }) => {
    const input = parseParams(
      { user_id: positiveIntegerParam, access_level: integerParam },
      { ...readQuery(url), ...(await readBody(request)), user_id: params.user_id },
    );
    return json(serializeMember(await updateMember(ctx, params.id!, input.user_id, input.access_level)));
  },
);

export const DELETE = apiRoute(
  { route: "/projects/:id/members/:user_id", scopes: writeApiScopes },
  async ({ ctx, url, params }) => {
    const { user_id } = parseParams({ user_id: positiveIntegerParam }, { ...readQuery(url), user_id: params.user_id });
    await removeMember(ctx, params.id!, user_id);
    return noContent();
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as POST, routeNotFound as PATCH } from "@/lib/api/handler";
