import { apiResource, endpoint } from "@/lib/api/endpoint";
import { memberUpdateParams } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { removeMember, updateMember } from "@/lib/projects/members";
import { serializeMember, memberEntity } from "@/lib/projects/serialize";
import { getMemberEndpoint, memberPath as path } from "../member-endpoints";
import { noContentAnswer, okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/members/:user_id", {
  GET: getMemberEndpoint,
  PUT: endpoint({
    response: okWith(memberEntity),
    scopes: writeApiScopes,
    path,
    params: memberUpdateParams,
    handle: async ({ ctx, path, params }) => {
      const changes = { accessLevel: params.access_level, expiresAt: params.expires_at };
      return json(serializeMember(await updateMember(ctx, path.id, path.user_id, changes)));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await removeMember(ctx, path.id, path.user_id);
      return noContent();
    },
  }),
});
