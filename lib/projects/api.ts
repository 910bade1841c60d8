import "server-only";
import { z } from "zod";
import { keysetHeaders, type ListPage, type PageRequest } from "@/lib/api/pagination";
import { booleanParam, dateTimeParam, integerParam, keysetPaginationParams, searchParam } from "@/lib/api/param-types";
import { json, paginated } from "@/lib/api/respond";
import { projectVisibilities } from "@/lib/db/schema";
import type { Ctx } from "@/lib/context";
import type { Answer } from "@/lib/http/answer";
import { KeysetUnavailableError } from "@/lib/errors";
import { projectOrderFields, type KeysetPage, type ProjectDetails, type ProjectListFilters, type ProjectPaging } from "./projects";
import { roleOptions } from "./roles";
import { serializeBasicProject, serializeProject } from "./serialize";

const roleLevels = roleOptions.map((role) => role.accessLevel);

/**
 * The parameters of GitLab's project lists (`GET /projects`, `GET /users/:user_id/projects`): its collection and
 * statistics parameters, those this service can honour.
 */
export const projectListParams = {
  archived: booleanParam.optional(),
  visibility: z.enum(projectVisibilities).optional(),
  search: searchParam.optional(),
  search_namespaces: booleanParam.optional(),
  owned: booleanParam.optional(),
  membership: booleanParam.optional(),
  min_access_level: integerParam.pipe(z.literal(roleLevels)).optional(),
  with_issues_enabled: booleanParam.optional(),
  id_after: integerParam.optional(),
  id_before: integerParam.optional(),
  last_activity_after: dateTimeParam.optional(),
  last_activity_before: dateTimeParam.optional(),
  order_by: z.enum(projectOrderFields).optional(),
  sort: z.enum(["asc", "desc"]).optional(),
  simple: booleanParam.optional(),
  statistics: booleanParam.optional(),
  ...keysetPaginationParams,
};

type ProjectListParams = z.infer<z.ZodObject<typeof projectListParams>>;

function projectListFiltersOf(params: ProjectListParams): ProjectListFilters {
  return {
    archived: params.archived,
    visibility: params.visibility,
    search: params.search,
    searchNamespaces: params.search_namespaces,
    owned: params.owned,
    membership: params.membership,
    minAccessLevel: params.min_access_level,
    withIssuesEnabled: params.with_issues_enabled,
    idAfter: params.id_after,
    idBefore: params.id_before,
    lastActivityAfter: params.last_activity_after,
    lastActivityBefore: params.last_activity_before,
    orderBy: params.order_by,
    sort: params.sort,
  };
}

/**
 * The entity GitLab's project lists and `GET /projects/:id` answer with: the basic details to anonymous callers and
 * with `simple=true`, else the project with the caller's permissions (ProjectWithAccess).
 */
export function listedProjectEntity(ctx: Ctx, details: ProjectDetails, { simple = false }: { simple?: boolean } = {}) {
  if (simple || ctx.actor.kind === "anonymous") return serializeBasicProject(details.view);
  return serializeProject(details, { permissions: true });
}

/**
 * How the list is paged: by offset, or by keyset as GitLab pages projects, which it can only in the order of their ids
 * (`order_by=id`, either way; the default order, by creation, is refused as GitLab refuses it).
 */
function projectPaging(params: ProjectListParams, page: PageRequest): ProjectPaging {
  if (params.pagination !== "keyset") return { kind: "offset", page };
  if (params.order_by !== "id") throw new KeysetUnavailableError();
  return { kind: "keyset", perPage: page.perPage };
}

/** GitLab's keyset link: the same request from after the page's last project, `id_before` descending, `id_after` ascending. */
function nextKeysetPage(params: ProjectListParams, found: KeysetPage<ProjectDetails>): Record<string, string> | null {
  const last = found.items.at(-1);
  if (!found.hasNext || !last) return null;
  return params.sort === "asc" ? { id_after: String(last.view.project.id) } : { id_before: String(last.view.project.id) };
}

/**
 * A project list's answer: the page `list` finds for the parameters' filters, each project as its entity, with offset
 * or keyset headers. Statistics are read only when the entity shows them (`simple` does not).
 */
export async function projectListAnswer(
  ctx: Ctx,
  call: { url: URL; page: PageRequest; params: ProjectListParams },
  list: (filters: ProjectListFilters, paging: ProjectPaging, options: { statistics: boolean }) => Promise<ListPage<ProjectDetails> | KeysetPage<ProjectDetails>>,
): Promise<Answer> {
  const simple = call.params.simple ?? false;
  const paging = projectPaging(call.params, call.page);
  const found = await list(projectListFiltersOf(call.params), paging, { statistics: !simple && (call.params.statistics ?? false) });
  const items = found.items.map((details) => listedProjectEntity(ctx, details, { simple }));
  if ("total" in found) return paginated(call.url, call.page, { ...found, items });
  return json(items, 200, keysetHeaders(call.url, call.page.perPage, nextKeysetPage(call.params, found)));
}
