import { endpoint } from "@/lib/api/endpoint";
import { idSegment, integerListParam, projectPath, searchParam } from "@/lib/api/param-types";
import { json, paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getMember, listMembers } from "@/lib/projects/members";
import { serializeMember, memberEntity } from "@/lib/projects/serialize";
import { listOf, okWith } from "@/lib/api/responses";

/** `GET …/members` and `GET …/members/all`: a page of members, searched by `query` or picked by `user_ids`. */
export const listMembersEndpoint = endpoint({
  response: listOf(memberEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: projectPath,
  paginated: true,
  params: {
    query: searchParam.optional(),
    user_ids: integerListParam.optional(),
  },
  handle: async ({ ctx, url, path, params, page }) => {
    const result = await listMembers(ctx, path.id, page, { query: params.query, userIds: params.user_ids });
    return paginated(url, page, { ...result, items: result.items.map(serializeMember) });
  },
});

export const memberPath = { ...projectPath, user_id: idSegment };

/** `GET …/members/:user_id` and `GET …/members/all/:user_id`. */
export const getMemberEndpoint = endpoint({
  response: okWith(memberEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: memberPath,
  handle: async ({ ctx, path }) => json(serializeMember(await getMember(ctx, path.id, path.user_id))),
});
