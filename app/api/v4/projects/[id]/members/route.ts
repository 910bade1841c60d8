import { apiResource, endpoint } from "@/lib/api/endpoint";
import { newMemberParams, projectPath } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { addMember } from "@/lib/projects/members";
import { serializeMember, memberEntity } from "@/lib/projects/serialize";
import { listMembersEndpoint } from "./member-endpoints";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/members", {
  GET: listMembersEndpoint,
  POST: endpoint({
    response: createdWith(memberEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: newMemberParams,
    handle: async ({ ctx, path, params }) => {
      const member = await addMember(ctx, path.id, { userId: params.user_id, accessLevel: params.access_level, expiresAt: params.expires_at });
      return created(serializeMember(member));
    },
  }),
});
