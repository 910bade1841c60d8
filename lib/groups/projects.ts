import "server-only";
import type { Ctx } from "@/lib/context";
import type { ListPage } from "@/lib/db";
import type { PageRequest } from "@/lib/api/pagination";
import { listIssuesAcrossProjects } from "@/lib/issues/issue-list";
import type { IssueFilters } from "@/lib/issues/issue-params";
import type { IssueDetails } from "@/lib/issues/issue-details";
import {
  listProjectDetails,
  listProjects,
  type KeysetPage,
  type ProjectDetails,
  type ProjectListFilters,
  type ProjectPaging,
  type ProjectView,
} from "@/lib/projects/projects";
import { findVisibleGroup, getVisibleGroup, groupSubtree, listGroups, type GroupView } from "./groups";

/**
 * `GET /groups/:id/projects`: the visible projects in the group, and with `include_subgroups` in every group below
 * it, filtered and ordered as `GET /projects`.
 */
export async function listGroupProjects(
  ctx: Ctx,
  reference: string,
  includeSubgroups: boolean,
  filters: ProjectListFilters,
  paging: ProjectPaging,
  options: { statistics?: boolean } = {},
): Promise<ListPage<ProjectDetails> | KeysetPage<ProjectDetails>> {
  const { group } = await getVisibleGroup(ctx, reference);
  const where = includeSubgroups ? { inNamespaces: groupSubtree(group) } : { namespaceId: group.id };
  return listProjectDetails(ctx, { ...filters, ...where }, paging, options);
}

/** `GET /groups/:id/issues`: the issues the caller may read in the group's projects and its subgroups' (`scope=all` by default). */
export async function listGroupIssues(ctx: Ctx, reference: string, filters: IssueFilters & { nonArchived?: boolean }, page: PageRequest): Promise<ListPage<IssueDetails>> {
  const { group } = await getVisibleGroup(ctx, reference);
  return listIssuesAcrossProjects(ctx, filters, page, groupSubtree(group));
}

/** What a group's overview page shows: the group, its subgroups (the first hundred, by name) and a page of its own projects. */
export interface GroupOverview {
  view: GroupView;
  subgroups: ListPage<GroupView>;
  projects: ListPage<ProjectView>;
}

/** The overview of the group at `fullPath`, or null when the caller may not see it (its page is then the 404 page). */
export async function groupOverview(ctx: Ctx, fullPath: string, projectPage: PageRequest): Promise<GroupOverview | null> {
  const view = await findVisibleGroup(ctx, fullPath);
  if (!view) return null;
  const [subgroups, projects] = await Promise.all([
    listGroups(ctx, { parentId: view.group.id }, { page: 1, perPage: 100, offset: 0 }),
    listProjects(ctx, { namespaceId: view.group.id }, projectPage),
  ]);
  return { view, subgroups, projects };
}
