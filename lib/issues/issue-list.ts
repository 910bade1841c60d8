import "server-only";
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lte, not, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { listPage, type ListPage } from "@/lib/db";
import { fuzzySearch } from "@/lib/db/like";
import { issueAssignees, issueColumns, issueLabels, issues, labels, milestones, namespaces, projects, users } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { accessLevelIn, projectVisibleTo, utcDay, viewerOf } from "@/lib/projects/access";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { withIssueDetail, withIssueDetails, type IssueDetails } from "./issue-details";
import type { IssueView } from "./issues";
import type { IssueFilters, IssueOrderColumn } from "./issue-params";
import { issueReadableBy, issueReadableInItsProject } from "./visibility";

export type { IssueFilters } from "./issue-params";

/** Ids a client may send beyond the integer columns' range match nothing (rather than failing the query). */
const storable = (id: number) => Number.isSafeInteger(id) && id >= -2_147_483_648 && id <= 2_147_483_647;
const idEquals = (column: typeof issues.authorId | typeof issueAssignees.userId, id: number) => (storable(id) ? eq(column, id) : sql`false`);

const assignedTo = (condition: SQL) => sql`exists (select 1 from ${issueAssignees} where ${issueAssignees.issueId} = ${issues.id} and ${condition})`;
const userNamed = (username: string) => sql`(select ${users.id} from ${users} where lower(${users.username}) = lower(${username}))`;

function labelConditions(filter: NonNullable<IssueFilters["labels"]>): SQL[] {
  const labelled = (condition?: SQL) =>
    sql`exists (select 1 from ${issueLabels} where ${issueLabels.issueId} = ${issues.id}${condition ? sql` and ${condition}` : sql``})`;
  if (filter.kind === "none") return [not(labelled())];
  if (filter.kind === "any") return [labelled()];
  // Every label named must be on the issue: one EXISTS per name, each through the (issue_id, label_id) key.
  return filter.names.map((name) =>
    labelled(sql`${issueLabels.labelId} in (select ${labels.id} from ${labels} where ${labels.projectId} = ${issues.projectId} and ${labels.title} = ${name})`),
  );
}

function milestoneCondition(filter: NonNullable<IssueFilters["milestone"]>, today: string): SQL {
  const inMilestone = (condition: SQL) =>
    sql`exists (select 1 from ${milestones} where ${milestones.id} = ${issues.milestoneId} and ${condition})`;
  switch (filter.kind) {
    case "none":
      return isNull(issues.milestoneId);
    case "any":
      return isNotNull(issues.milestoneId);
    case "started":
      return inMilestone(sql`${milestones.state} = 'active' and ${milestones.startDate} <= ${today}::date`);
    case "upcoming":
      // The REST API's legacy rule: each project's active milestone due soonest after today.
      return inMilestone(
        sql`${milestones.state} = 'active' and ${milestones.dueDate} = (select min(m.due_date) from ${milestones} m where m.project_id = ${milestones.projectId} and m.state = 'active' and m.due_date > ${today}::date)`,
      );
    case "title":
      return inMilestone(sql`${milestones.title} = ${filter.title}`);
  }
}

/** The filters as SQL over `issues`: every one is a condition of the query, so pages are full and totals exact. */
function filterConditions(ctx: Ctx, filters: IssueFilters): SQL[] {
  const user = actingUser(ctx);
  const conditions: SQL[] = [];
  if (filters.state && filters.state !== "all") conditions.push(eq(issues.state, filters.state));
  if (filters.scope === "created_by_me") conditions.push(user ? eq(issues.authorId, user.id) : sql`false`);
  if (filters.scope === "assigned_to_me") conditions.push(user ? assignedTo(eq(issueAssignees.userId, user.id)) : sql`false`);
  if (filters.labels) conditions.push(...labelConditions(filters.labels));
  if (filters.milestone) conditions.push(milestoneCondition(filters.milestone, utcDay(ctx.now)));
  if (filters.authorId !== undefined) conditions.push(idEquals(issues.authorId, filters.authorId));
  if (filters.authorUsername !== undefined) conditions.push(sql`${issues.authorId} = ${userNamed(filters.authorUsername)}`);
  if (filters.assignee?.kind === "id") conditions.push(assignedTo(idEquals(issueAssignees.userId, filters.assignee.id)));
  if (filters.assignee?.kind === "none") conditions.push(not(assignedTo(sql`true`)));
  if (filters.assignee?.kind === "any") conditions.push(assignedTo(sql`true`));
  for (const username of filters.assigneeUsernames ?? []) conditions.push(assignedTo(sql`${issueAssignees.userId} = ${userNamed(username)}`));
  if (filters.search) {
    const columns = (filters.searchIn ?? ["title", "description"]).map((column) => (column === "title" ? issues.title : issues.description));
    const matches = fuzzySearch(columns, filters.search);
    if (matches) conditions.push(matches);
  }
  if (filters.createdAfter) conditions.push(gte(issues.createdAt, filters.createdAfter));
  if (filters.createdBefore) conditions.push(lte(issues.createdAt, filters.createdBefore));
  if (filters.updatedAfter) conditions.push(gte(issues.updatedAt, filters.updatedAfter));
  if (filters.updatedBefore) conditions.push(lte(issues.updatedAt, filters.updatedBefore));
  if (filters.iids) {
    const iids = filters.iids.filter(storable);
    conditions.push(iids.length > 0 ? inArray(issues.iid, iids) : sql`false`);
  }
  if (filters.confidential !== undefined) conditions.push(eq(issues.confidential, filters.confidential));
  return conditions;
}

/**
 * GitLab's orders, newest first by default, with the id as the tie-breaker so pages never overlap. Dates that may be
 * missing sort last either way; orders by data this service does not keep (votes, priorities, manual positions) are
 * by id.
 */
function issueOrder(orderBy: IssueOrderColumn = "created_at", sort: "asc" | "desc" = "desc"): SQL[] {
  const direction = sort === "asc" ? asc : desc;
  const nullsLast = (value: SQL) => (sort === "asc" ? sql`${value} asc nulls last` : sql`${value} desc nulls last`);
  switch (orderBy) {
    case "created_at":
      return [direction(issues.createdAt), direction(issues.id)];
    case "updated_at":
      return [direction(issues.updatedAt), direction(issues.id)];
    case "title":
      return [direction(issues.title), direction(issues.id)];
    case "due_date":
      return [nullsLast(sql`${issues.dueDate}`), direction(issues.id)];
    case "milestone_due":
      return [nullsLast(sql`(select ${milestones.dueDate} from ${milestones} where ${milestones.id} = ${issues.milestoneId})`), direction(issues.id)];
    default:
      return [direction(issues.id)];
  }
}

/** One project's issues the caller may read, filtered and ordered, with their details. */
async function projectIssuePage(
  ctx: Ctx,
  view: ProjectView,
  conditions: SQL[],
  order: SQL[],
  page: PageRequest,
): Promise<ListPage<IssueDetails>> {
  const where = and(eq(issues.projectId, view.project.id), issueReadableBy(ctx, view), ...conditions);
  const list = await listPage(
    ctx.db,
    page,
    ctx.db
      .select({ issue: issueColumns, author: users })
      .from(issues)
      .innerJoin(users, eq(users.id, issues.authorId))
      .where(where)
      .orderBy(...order)
      .$dynamic(),
    ctx.db.select({ one: sql`1` }).from(issues).where(where).$dynamic(),
  );
  return { ...list, items: await withIssueDetails(ctx, list.items.map((row) => ({ view, ...row }))) };
}

/** `GET /projects/:id/issues`: the project's issues the caller may read (all states unless `state` says). */
export async function listIssues(
  ctx: Ctx,
  projectReference: string,
  filters: IssueFilters,
  page: PageRequest,
): Promise<ListPage<IssueDetails> & { view: ProjectView }> {
  const view = await getVisibleProject(ctx, projectReference);
  const result = await projectIssuePage(ctx, view, filterConditions(ctx, filters), issueOrder(filters.orderBy, filters.sort), page);
  return { view, ...result };
}

/** `GET /projects/:id/milestones/:milestone_id/issues`: the milestone's issues the caller may read, newest first. */
export async function listMilestoneIssues(
  ctx: Ctx,
  projectReference: string,
  milestoneId: number,
  page: PageRequest,
): Promise<ListPage<IssueDetails>> {
  const view = await getVisibleProject(ctx, projectReference);
  const [milestone] = await ctx.db
    .select({ id: milestones.id })
    .from(milestones)
    .where(and(eq(milestones.projectId, view.project.id), eq(milestones.id, milestoneId)));
  if (!milestone) throw new NotFoundError("Milestone");
  return projectIssuePage(ctx, view, [eq(issues.milestoneId, milestone.id)], [desc(issues.id)], page);
}

/**
 * `GET /issues`: issues of every project the caller sees (with an issue tracker) that they may read, for the scope:
 * `created_by_me` (the default) and `assigned_to_me` need a signed-in caller, `all` does not. Archived projects'
 * issues are left out unless `nonArchived` is false.
 */
export async function listIssuesAcrossProjects(
  ctx: Ctx,
  filters: IssueFilters & { nonArchived?: boolean },
  page: PageRequest,
): Promise<ListPage<IssueDetails>> {
  const scope = filters.scope ?? "created_by_me";
  if (scope !== "all" && !actingUser(ctx)) throw new UnauthorizedError();
  const viewer = viewerOf(ctx);
  const where = and(
    projectVisibleTo(viewer),
    eq(projects.issuesEnabled, true),
    filters.nonArchived === false ? undefined : eq(projects.archived, false),
    issueReadableInItsProject(viewer),
    ...filterConditions(ctx, { ...filters, scope }),
  );
  const list = await listPage(
    ctx.db,
    page,
    issuesWithTheirProjects(ctx, where).orderBy(...issueOrder(filters.orderBy, filters.sort)),
    ctx.db.select({ one: sql`1` }).from(issues).innerJoin(projects, eq(projects.id, issues.projectId)).where(where).$dynamic(),
  );
  return { ...list, items: await withIssueDetails(ctx, list.items.map(asIssueView)) };
}

/** Issues matching `where`, each with its project, namespace and the caller's role there (dynamic: add order, paging). */
function issuesWithTheirProjects(ctx: Ctx, where: SQL | undefined) {
  return ctx.db
    .select({ issue: issueColumns, author: users, project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewerOf(ctx)) })
    .from(issues)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, eq(users.id, issues.authorId))
    .where(where)
    .$dynamic();
}

function asIssueView({ issue, author, project, namespace, accessLevel }: Awaited<ReturnType<typeof issuesWithTheirProjects>>[number]): IssueView {
  return { view: { project, namespace, accessLevel }, issue, author };
}

/** `GET /issues/:id` (admins): any issue by its global id. */
export async function getIssueAsAdmin(ctx: Ctx, issueId: number): Promise<IssueDetails> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (!user.isAdmin) throw new ForbiddenError();
  const [row] = await issuesWithTheirProjects(ctx, eq(issues.id, issueId));
  if (!row) throw new NotFoundError("Issue");
  return withIssueDetail(ctx, asIssueView(row));
}
