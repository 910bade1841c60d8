import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, memberUpdateParams } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { groupPath } from "@/lib/groups/endpoints";
import { getGroupMember, removeGroupMember, updateGroupMember } from "@/lib/groups/members";
import { serializeMember, memberEntity } from "@/lib/projects/serialize";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const memberPath = { ...groupPath, user_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/members/:user_id", {
  GET: endpoint({
    response: okWith(memberEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: memberPath,
    handle: async ({ ctx, path }) => json(serializeMember(await getGroupMember(ctx, path.id, path.user_id))),
  }),
  PUT: endpoint({
    response: okWith(memberEntity),
    scopes: writeApiScopes,
    path: memberPath,
    params: memberUpdateParams,
    handle: async ({ ctx, path, params }) =>
      json(serializeMember(await updateGroupMember(ctx, path.id, path.user_id, { accessLevel: params.access_level, expiresAt: params.expires_at }))),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path: memberPath,
    handle: async ({ ctx, path }) => {
      await removeGroupMember(ctx, path.id, path.user_id);
      return noContent();
    },
  }),
});
