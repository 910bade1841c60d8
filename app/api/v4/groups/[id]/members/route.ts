import { apiResource, endpoint } from "@/lib/api/endpoint";
import { integerListParam, newMemberParams, searchParam } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { groupPath } from "@/lib/groups/endpoints";
import { addGroupMember, listGroupMembers } from "@/lib/groups/members";
import { serializeMember, memberEntity } from "@/lib/projects/serialize";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/members", {
  GET: endpoint({
    response: listOf(memberEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: groupPath,
    paginated: true,
    params: { query: searchParam.optional(), user_ids: integerListParam.optional() },
    handle: async ({ ctx, url, path, params, page }) => {
      const list = await listGroupMembers(ctx, path.id, page, { query: params.query, userIds: params.user_ids });
      return paginated(url, page, { ...list, items: list.items.map(serializeMember) });
    },
  }),
  POST: endpoint({
    response: createdWith(memberEntity),
    scopes: writeApiScopes,
    path: groupPath,
    params: newMemberParams,
    handle: async ({ ctx, path, params }) => {
      const member = await addGroupMember(ctx, path.id, { userId: params.user_id, accessLevel: params.access_level, expiresAt: params.expires_at });
      return created(serializeMember(member));
    },
  }),
});
