import "server-only";
import { z } from "zod";
import { endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment, integerListParam, integerParam, searchParam } from "@/lib/api/param-types";
import { json, paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { memberEntity, serializeMember } from "@/lib/projects/serialize";
import { groupOrderFields, listGroups, listSubgroups, type GroupListFilters } from "./groups";
import { getAllMember, listAllGroupMembers, listAllProjectMembers } from "./members";
import { groupEntity, serializeGroup } from "./serialize";
import { listOf, okWith } from "@/lib/api/responses";

/** `:id` of `/groups/:id/…`: a numeric id or a URL-encoded full path. */
export const groupPath = { id: z.string() };

export const groupListParams = {
  search: searchParam.optional(),
  owned: booleanParam.optional(),
  min_access_level: integerParam.optional(),
  all_available: booleanParam.optional(),
  top_level_only: booleanParam.optional(),
  order_by: z.enum(groupOrderFields).optional(),
  sort: z.enum(["asc", "desc"]).optional(),
  statistics: booleanParam.optional(),
  with_custom_attributes: booleanParam.optional(),
};

type GroupListParams = z.infer<z.ZodObject<typeof groupListParams>>;

export function groupListFiltersOf(params: GroupListParams): GroupListFilters {
  return {
    search: params.search,
    owned: params.owned,
    minAccessLevel: params.min_access_level,
    allAvailable: params.all_available,
    topLevelOnly: params.top_level_only,
    orderBy: params.order_by,
    sort: params.sort,
  };
}

/** `GET /groups`. */
export const listGroupsEndpoint = endpoint({
  response: listOf(groupEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  paginated: true,
  params: groupListParams,
  handle: async ({ ctx, url, params, page }) => {
    const list = await listGroups(ctx, groupListFiltersOf(params), page);
    return paginated(url, page, { ...list, items: list.items.map(serializeGroup) });
  },
});

/** `GET /groups/:id/subgroups` and `…/descendant_groups`. */
export function subgroupsEndpoint(depth: "children" | "descendants") {
  return endpoint({
    response: listOf(groupEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: groupPath,
    paginated: true,
    params: groupListParams,
    handle: async ({ ctx, url, path, params, page }) => {
      const list = await listSubgroups(ctx, path.id, depth, groupListFiltersOf(params), page);
      return paginated(url, page, { ...list, items: list.items.map(serializeGroup) });
    },
  });
}

const memberListParams = { query: searchParam.optional(), user_ids: integerListParam.optional() };

/** `GET /projects/:id/members/all` and `GET /groups/:id/members/all`: direct and inherited members, each once. */
export function allMembersEndpoint(source: "project" | "group") {
  return endpoint({
    response: listOf(memberEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: { id: z.string() },
    paginated: true,
    params: memberListParams,
    handle: async ({ ctx, url, path, params, page }) => {
      const filters = { query: params.query, userIds: params.user_ids };
      const list = source === "project" ? await listAllProjectMembers(ctx, path.id, page, filters) : await listAllGroupMembers(ctx, path.id, page, filters);
      return paginated(url, page, { ...list, items: list.items.map(serializeMember) });
    },
  });
}

/** `GET …/members/all/:user_id`. */
export function allMemberEndpoint(source: "project" | "group") {
  return endpoint({
    response: okWith(memberEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: { id: z.string(), user_id: idSegment },
    handle: async ({ ctx, path }) => json(serializeMember(await getAllMember(ctx, { [source]: path.id }, path.user_id))),
  });
}
