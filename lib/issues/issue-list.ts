import "server-only";
import { and, count, eq, gte, inArray, isNotNull, isNull, lte, not, sql, type SQL } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, type KeyedList, type ListPage, type OrderKey } from "@/lib/db";
import { fuzzySearch } from "@/lib/db/like";
import { withCustomPlans } from "@/lib/db/prepared";
import { issueAssignees, issueColumns, issueLabels, issues, labels, milestones, namespaces, projects, users } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { accessLevelIn, amongIds, projectVisibleTo, utcDay, viewerOf } from "@/lib/projects/access";
import { can } from "@/lib/projects/policy";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { withIssueDetail, withIssueDetails, type IssueDetails } from "./issue-details";
import type { IssueView } from "./issues";
import type { IssueFilters, IssueOrderColumn } from "./issue-params";
import { confidentialIssuesWrittenBy, issueReadableAmong, issueReadableBy, issueReadableInItsProject } from "./visibility";

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
function issueOrder(orderBy: IssueOrderColumn = "created_at", sort: "asc" | "desc" = "desc"): OrderKey[] {
  const descending = sort === "desc";
  const byId: OrderKey = { value: issues.id, descending };
  switch (orderBy) {
    case "created_at":
      return [{ value: issues.createdAt, descending }, byId];
    case "updated_at":
      return [{ value: issues.updatedAt, descending }, byId];
    case "title":
      return [{ value: issues.title, descending }, byId];
    case "due_date":
      return [{ value: issues.dueDate, descending, nullsLast: true }, byId];
    case "milestone_due":
      return [
        { value: sql`(select ${milestones.dueDate} from ${milestones} where ${milestones.id} = ${issues.milestoneId})`, descending, nullsLast: true },
        byId,
      ];
    default:
      return [byId];
  }
}

/**
 * Issues matching `where` in `order`, as a `KeyedList`: a page's ids come from the issue indexes, whose columns carry
 * the state, confidentiality and author, so even a deep page of a project with a million issues is read from the index
 * alone, and only the page's issues are joined to their authors (and projects, `withProjects`).
 */
function issueList<Rows extends PgSelect>(
  ctx: Ctx,
  where: SQL | undefined,
  order: OrderKey[],
  rows: (pageKeys: SQL, issueId: SQL) => Rows,
  from: "issues" | "issues and projects" = "issues",
): KeyedList<Rows> {
  return {
    order,
    branches: (keys) => {
      const select = ctx.db.select(keys).from(issues).$dynamic();
      return [(from === "issues" ? select : select.innerJoin(projects, eq(projects.id, issues.projectId))).where(where)];
    },
    rows: (pageKeys, key) => rows(pageKeys, key(order.length - 1)),
  };
}

function issuesWithAuthors(ctx: Ctx, pageKeys: SQL, issueId: SQL) {
  return ctx.db
    .select({ issue: issueColumns, author: users })
    .from(pageKeys)
    .innerJoin(issues, sql`${issues.id} = ${issueId}`)
    .innerJoin(users, eq(users.id, issues.authorId))
    .$dynamic();
}

/** Whether a project's issue list is filtered by its state alone, which maintained counts can total exactly. */
function filteredByStateOnly(filters: IssueFilters): boolean {
  return Object.entries(filters).every(([name, value]) => value === undefined || ["state", "orderBy", "sort"].includes(name));
}

/**
 * The number of open issues the caller may read in the project, from its maintained counts: all of them for those who
 * read confidential issues; else those that are not confidential and the caller's own confidential ones.
 */
async function readableOpenIssues(ctx: Ctx, view: ProjectView): Promise<number> {
  const { project } = view;
  if (can(view, "readConfidentialIssues")) return project.openIssuesCount;
  const user = actingUser(ctx);
  if (!user) return project.openNonConfidentialIssuesCount;
  const ownConfidential = confidentialIssuesWrittenBy(user.id);
  const [own] = await ctx.db
    .select({ total: count() })
    .from(ownConfidential.from)
    .where(and(sql`${ownConfidential.projectId} = ${project.id}`, sql`${ownConfidential.state} = 'opened'`));
  return project.openNonConfidentialIssuesCount + (own?.total ?? 0);
}

/** One project's issues the caller may read, filtered and ordered, with their details. */
async function projectIssuePage(
  ctx: Ctx,
  view: ProjectView,
  conditions: SQL[],
  order: OrderKey[],
  page: PageRequest,
  options: { total?: () => Promise<number | undefined> } = {},
): Promise<ListPage<IssueDetails>> {
  const where = and(eq(issues.projectId, view.project.id), issueReadableBy(ctx, view), ...conditions);
  const list = await keyedListPage(ctx.db, page, issueList(ctx, where, order, (pageKeys, issueId) => issuesWithAuthors(ctx, pageKeys, issueId)), options);
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
  const openOnly = filters.state === "opened" && filteredByStateOnly(filters);
  const result = await projectIssuePage(ctx, view, filterConditions(ctx, filters), issueOrder(filters.orderBy, filters.sort), page, {
    total: openOnly ? () => readableOpenIssues(ctx, view) : undefined,
  });
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
  return listIssuesUnderMilestone(ctx, { view, milestone }, "all", page);
}

/**
 * The issues filed under a milestone already found in a project the caller sees (a milestone's page), those the caller
 * may read, in one state or all, newest first.
 */
export async function listIssuesUnderMilestone(
  ctx: Ctx,
  { view, milestone }: { view: ProjectView; milestone: { id: number } },
  state: "opened" | "closed" | "all",
  page: PageRequest,
): Promise<ListPage<IssueDetails>> {
  const conditions = [eq(issues.milestoneId, milestone.id), ...(state === "all" ? [] : [eq(issues.state, state)])];
  return projectIssuePage(ctx, view, conditions, [{ value: issues.id, descending: true }], page);
}

/**
 * `GET /issues`: issues of every project the caller sees (with an issue tracker) that they may read, for the scope:
 * `created_by_me` (the default) and `assigned_to_me` need a signed-in caller, `all` does not. Archived projects'
 * issues are left out unless `nonArchived` is false. The list walks the issues in its order (by the `issues_created_idx`
 * or `issues_updated_idx` index) and checks each one's project, so a page costs about a page when most issues are in
 * projects the caller sees.
 */
export async function listIssuesAcrossProjects(
  ctx: Ctx,
  filters: IssueFilters & { nonArchived?: boolean },
  page: PageRequest,
  /** Only the projects in these namespaces (`GET /groups/:id/issues`: the group's and its subgroups'). */
  namespaceIds?: SQL,
): Promise<ListPage<IssueDetails>> {
  const scope = filters.scope ?? (namespaceIds ? "all" : "created_by_me");
  if (scope !== "all" && !actingUser(ctx)) throw new UnauthorizedError();
  const viewer = viewerOf(ctx);
  const projectConditions = and(
    projectVisibleTo(viewer),
    eq(projects.issuesEnabled, true),
    filters.nonArchived === false ? undefined : eq(projects.archived, false),
  )!;
  const filtered = filterConditions(ctx, { ...filters, scope });
  const rows = (planned: Ctx) => (pageKeys: SQL, issueId: SQL) => issuesWithTheirProjects(planned, sql`${issues.id} = ${issueId}`, pageKeys);
  const order = issueOrder(filters.orderBy, filters.sort);
  // A group's list is on `issues` alone: its projects the viewer sees, and those where they read confidential issues,
  // are each one array read once, so PostgreSQL reads those projects' issues by project, at the cost of the group's
  // issues. Joined to `projects`, a signed-in viewer's per-row role lookup made it walk every issue of the instance in
  // order instead.
  const groupProjects =
    namespaceIds &&
    ((condition: SQL) => amongIds(issues.projectId, sql`select ${projects.id} from ${projects} where ${projects.namespaceId} in (${namespaceIds}) and ${condition}`));
  const where = groupProjects
    ? and(groupProjects(projectConditions), issueReadableAmong(viewer, groupProjects), ...filtered)
    : and(projectConditions, issueReadableInItsProject(viewer), ...filtered);
  // The per-row role lookups of a signed-in viewer make the page's best plan depend on who asks and how deep.
  const list = await withCustomPlans(ctx.db, (db) => {
    const planned = { ...ctx, db };
    return keyedListPage(db, page, issueList(planned, where, order, rows(planned), groupProjects ? "issues" : "issues and projects"));
  });
  return { ...list, items: await withIssueDetails(ctx, list.items.map(asIssueView)) };
}

/**
 * Issues (joined to `pageKeys` on `joinedOn`, or matching `joinedOn` alone), each with its project, namespace and the
 * caller's role there (dynamic: add order).
 */
function issuesWithTheirProjects(ctx: Ctx, joinedOn: SQL, pageKeys?: SQL) {
  const columns = { issue: issueColumns, author: users, project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewerOf(ctx)) };
  const selected = pageKeys ? ctx.db.select(columns).from(pageKeys).innerJoin(issues, joinedOn) : ctx.db.select(columns).from(issues);
  return selected
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, eq(users.id, issues.authorId))
    .where(pageKeys ? undefined : joinedOn)
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
