import "server-only";
import type { Ctx } from "@/lib/context";
import type { ListPage } from "@/lib/db";
import type { PageRequest } from "@/lib/api/pagination";
import { listIssuesAcrossProjects } from "@/lib/issues/issue-list";
import type { IssueFilters } from "@/lib/issues/issue-params";
import type { IssueDetails } from "@/lib/issues/issue-details";
import { listProjectDetails, type KeysetPage, type ProjectDetails, type ProjectListFilters, type ProjectPaging } from "@/lib/projects/projects";
import { getVisibleGroup, groupSubtree } from "./groups";

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
