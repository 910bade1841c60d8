import "server-only";
import { and, asc, desc, eq, gt, inArray, lt, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { listPage, placeholder, preparedQueries, type ListPage } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { fuzzySearch } from "@/lib/db/like";
import {
  accessLevels,
  issues,
  namespaces,
  projectMembers,
  projects,
  type NamespaceRow,
  type ProjectRow,
  type ProjectVisibility,
  type UserRow,
} from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import { getUserByIdOrUsername, getUserByUsername } from "@/lib/users/users";
import type { PageRequest } from "@/lib/api/pagination";
import { noSuchId, numericReference } from "@/lib/api/param-types";
import { accessLevelIn, hasRoleIn, isMemberOf, membershipActive, projectVisibleTo, utcDay, viewerOf, type Viewer } from "./access";
import { can, type RoleAbility } from "./policy";
import { pathFromName, projectNameProblem, projectPathProblem } from "./path-rules";
import { readProjectStatistics, type ProjectStatistics } from "./statistics";

export { projectVisibilities } from "@/lib/db/schema";

/** A project with what every view of it needs: its namespace and the caller's access level (null: none). */
export interface ProjectView {
  project: ProjectRow;
  namespace: NamespaceRow;
  accessLevel: number | null;
}

export interface NewProject {
  name?: string;
  path?: string;
  description?: string;
  visibility?: ProjectVisibility;
  issuesEnabled?: boolean;
}

/** `POST /projects`: creates a project in the caller's namespace, makes them Owner and records `created`. */
export async function createProject(ctx: Ctx, input: NewProject): Promise<ProjectView> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const name = (input.name ?? input.path ?? "").trim();
  const path = input.path ?? pathFromName(name);
  const errors: Record<string, string[]> = {};
  const nameIssue = projectNameProblem(name);
  if (nameIssue) errors.name = [nameIssue];
  const pathIssue = projectPathProblem(path);
  if (pathIssue) errors.path = [pathIssue];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  try {
    return await ctx.db.transaction(async (tx) => {
      const [namespace] = await tx.select().from(namespaces).where(eq(namespaces.ownerId, user.id));
      if (!namespace) throw new Error(`user ${user.id} has no namespace`);
      const [project] = await tx
        .insert(projects)
        .values({
          namespaceId: namespace.id,
          creatorId: user.id,
          name,
          path,
          description: input.description ?? null,
          visibility: input.visibility ?? "private",
          issuesEnabled: input.issuesEnabled ?? true,
          createdAt: ctx.now,
          lastActivityAt: ctx.now,
        })
        .returning();
      if (!project) throw new Error("insert into projects returned no row");
      await tx.insert(projectMembers).values({
        projectId: project.id,
        userId: user.id,
        accessLevel: accessLevels.owner,
        createdById: user.id,
        createdAt: ctx.now,
      });
      await recordEvent(tx, { projectId: project.id, authorId: user.id, action: "created", createdAt: ctx.now });
      return { project, namespace, accessLevel: accessLevels.owner };
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) === "projects_namespace_path_lower_key") {
      // The path is what must be unique; a name only clashes through the path derived from it.
      throw new ValidationError(input.path === undefined ? { name: ["has already been taken"] } : { path: ["has already been taken"] });
    }
    throw error;
  }
}

/** What `:id` in API paths names: a numeric id or a URL-encoded `namespace/path`; null when it can name no project. */
export type ProjectReference = { by: "id"; id: number } | { by: "path"; namespacePath: string; projectPath: string };

export function parseProjectReference(reference: string): ProjectReference | null {
  const id = numericReference(reference);
  if (id !== null) return id === noSuchId ? null : { by: "id", id };
  const separator = reference.lastIndexOf("/");
  if (separator <= 0) return null;
  return { by: "path", namespacePath: reference.slice(0, separator), projectPath: reference.slice(separator + 1) };
}

/**
 * The project a reference names, as a predicate on `projects` joined to its `namespaces`. The values may be
 * placeholders, for statements prepared once for every reference of a kind.
 */
export function projectNamed(
  reference: { by: "id"; id: number | Placeholder } | { by: "path"; namespacePath: string | Placeholder; projectPath: string | Placeholder },
): SQL {
  if (reference.by === "id") return eq(projects.id, reference.id);
  return and(
    sql`lower(${namespaces.path}) = lower(${reference.namespacePath})`,
    sql`lower(${projects.path}) = lower(${reference.projectPath})`,
  )!;
}

/** Projects matching `where`, each with its namespace and the caller's access level (dynamic: add order and paging). */
function projectViews(ctx: Ctx, where: SQL | undefined) {
  return ctx.db
    .select({ project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewerOf(ctx)) })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(where)
    .$dynamic();
}

function matchingProjects(ctx: Ctx, where: SQL | undefined) {
  return ctx.db.select({ one: sql`1` }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where).$dynamic();
}

/** The project if the caller may see it; otherwise 404, so private projects are indistinguishable from missing ones. */
export async function getVisibleProject(ctx: Ctx, reference: string): Promise<ProjectView> {
  const named = parseProjectReference(reference);
  if (!named) throw new NotFoundError("Project");
  const [row] = await projectViews(ctx, and(projectNamed(named), projectVisibleTo(viewerOf(ctx))));
  if (!row) throw new NotFoundError("Project");
  return row;
}

/** The project, if the caller's role allows `ability` in it: 404 when they cannot see it, 403 when they can. */
export async function getProjectWithAbility(ctx: Ctx, reference: string, ability: RoleAbility): Promise<ProjectView> {
  const view = await getVisibleProject(ctx, reference);
  if (!can(view, ability)) throw new ForbiddenError();
  return view;
}

export const projectOrderFields = ["id", "name", "path", "created_at", "updated_at", "last_activity_at"] as const;

/** `GET /projects`' filters, with GitLab's meanings (ProjectsFinder and the API's finder parameters). */
export interface ProjectListFilters {
  /** Projects the caller is a member of. */
  membership?: boolean;
  /** Projects in the caller's namespace. */
  owned?: boolean;
  /** Projects where the caller's own role is at least this (an admin's too: being admin is no role). */
  minAccessLevel?: number;
  visibility?: ProjectVisibility;
  /** GitLab's fuzzy search over path, name and description. */
  search?: string;
  /** Search the full path and the name with namespace instead of the project's own path and name. */
  searchNamespaces?: boolean;
  /** true: archived projects only; false: none; unset: both. */
  archived?: boolean;
  withIssuesEnabled?: boolean;
  idAfter?: number;
  idBefore?: number;
  lastActivityAfter?: Date;
  lastActivityBefore?: Date;
  /** Projects in this user's namespace (`GET /users/:id/projects`). */
  ownerId?: number;
  /** Projects in this user's namespace or where they are a member (their user page). */
  ownerOrMemberId?: number;
  orderBy?: (typeof projectOrderFields)[number];
  sort?: "asc" | "desc";
}

const orderColumns = {
  id: projects.id,
  name: projects.name,
  path: projects.path,
  created_at: projects.createdAt,
  updated_at: projects.updatedAt,
  last_activity_at: projects.lastActivityAt,
} as const;

/**
 * Which of the visible projects a list keeps, as GitLab's ProjectsFinder chooses its collection: those in the caller's
 * namespace (`owned`), else those where the caller has at least a role (`min_access_level`), else any membership
 * (`membership`), else all of them (undefined). Anonymous callers own and belong to nothing.
 */
function ownProjects(ctx: Ctx, filters: ProjectListFilters): SQL | undefined {
  const user = actingUser(ctx);
  const wantsOwnProjects = filters.owned || filters.minAccessLevel !== undefined || filters.membership;
  if (!wantsOwnProjects) return undefined;
  if (!user) return sql`false`;
  const today = utcDay(ctx.now);
  if (filters.owned) return eq(namespaces.ownerId, user.id);
  if (filters.minAccessLevel !== undefined) return hasRoleIn(user.id, today, filters.minAccessLevel);
  return isMemberOf(user.id, today);
}

/** GitLab's project search: each term in path, name or description; with namespaces, in the full path and name. */
function projectSearch(query: string, withNamespaces: boolean): SQL {
  const columns: SQL[] = withNamespaces
    ? [sql`${namespaces.path} || '/' || ${projects.path}`, sql`${namespaces.name} || ' / ' || ${projects.name}`, sql`${projects.description}`]
    : [sql`${projects.path}`, sql`${projects.name}`, sql`${projects.description}`];
  return fuzzySearch(columns, query) ?? sql`true`;
}

function projectListConditions(ctx: Ctx, filters: ProjectListFilters): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    projectVisibleTo(viewerOf(ctx)),
    ownProjects(ctx, filters),
    filters.ownerId === undefined ? undefined : eq(namespaces.ownerId, filters.ownerId),
    filters.ownerOrMemberId === undefined ? undefined : or(eq(namespaces.ownerId, filters.ownerOrMemberId), isMemberOf(filters.ownerOrMemberId, utcDay(ctx.now))),
    filters.visibility === undefined ? undefined : eq(projects.visibility, filters.visibility),
    filters.search?.trim() ? projectSearch(filters.search, filters.searchNamespaces ?? false) : undefined,
    filters.archived === undefined ? undefined : eq(projects.archived, filters.archived),
    filters.withIssuesEnabled ? eq(projects.issuesEnabled, true) : undefined,
    filters.idAfter === undefined ? undefined : gt(projects.id, filters.idAfter),
    filters.idBefore === undefined ? undefined : lt(projects.id, filters.idBefore),
    filters.lastActivityAfter === undefined ? undefined : gt(projects.lastActivityAt, filters.lastActivityAfter),
    filters.lastActivityBefore === undefined ? undefined : lt(projects.lastActivityAt, filters.lastActivityBefore),
  ];
  return and(...conditions);
}

/** Projects the caller can see, filtered as `GET /projects` filters them, newest first by default. */
export async function listProjects(
  ctx: Ctx,
  filters: ProjectListFilters,
  page: PageRequest,
): Promise<ListPage<ProjectView>> {
  const where = projectListConditions(ctx, filters);
  const direction = filters.sort === "asc" ? asc : desc;
  const orderColumn = orderColumns[filters.orderBy ?? "created_at"];
  return listPage(ctx.db, page, projectViews(ctx, where).orderBy(direction(orderColumn), direction(projects.id)), matchingProjects(ctx, where));
}

/**
 * A user page (`/:username`): the user and the projects the caller can see among those in the user's namespace and
 * those the user is a member of, as GitLab's profile shows personal and member projects, newest first.
 */
export async function listUserProjects(
  ctx: Ctx,
  username: string,
  page: PageRequest,
): Promise<ListPage<ProjectView> & { user: UserRow }> {
  const user = await getUserByUsername(ctx, username);
  return { ...(await listProjects(ctx, { ownerOrMemberId: user.id }, page)), user };
}

/** A project as the API's entity shows it: the view, its open issues and, when asked for, its statistics. */
export interface ProjectDetails {
  view: ProjectView;
  /** Issues still open; confidential ones count only for those who may read them, as GitLab counts. */
  openIssuesCount: number;
  /** Null unless asked for and the caller may read them (Reporters and above). */
  statistics: ProjectStatistics | null;
  /** The caller's own role in force (an admin who is no member has none, unlike `view.accessLevel`). */
  membershipAccessLevel: number | null;
}

/**
 * What a project's entity shows besides the project itself (open issues, the acting user's own role), as columns of a
 * query over `projects`, so a project and its details come in one round trip. The user's id and the day may be
 * placeholders, for the statement `getProjectDetails` prepares.
 */
function detailColumns(user: { id: number | Placeholder } | null, today: string | Placeholder) {
  const openIssues = sql`${issues.projectId} = ${projects.id} and ${issues.state} = 'opened'`;
  return {
    openIssues: sql<number>`(select count(*) from ${issues} where ${openIssues})`.mapWith(Number),
    openPublicIssues: sql<number>`(select count(*) from ${issues} where ${openIssues} and not ${issues.confidential})`.mapWith(Number),
    membershipAccessLevel: user
      ? sql<number | null>`(select ${projectMembers.accessLevel} from ${projectMembers} where ${projectMembers.projectId} = ${projects.id} and ${projectMembers.userId} = ${user.id} and ${membershipActive(today)})`
      : sql<number | null>`null::integer`,
  };
}

type DetailColumns = { openIssues: number; openPublicIssues: number; membershipAccessLevel: number | null };

async function describeProject(view: ProjectView, columns: DetailColumns, options: { statistics?: boolean }): Promise<ProjectDetails> {
  return {
    view,
    openIssuesCount: can(view, "readConfidentialIssues") ? columns.openIssues : columns.openPublicIssues,
    statistics: options.statistics && can(view, "readStatistics") ? await readProjectStatistics(view.project) : null,
    membershipAccessLevel: columns.membershipAccessLevel,
  };
}

async function withDetails(ctx: Ctx, views: ProjectView[], options: { statistics?: boolean } = {}): Promise<ProjectDetails[]> {
  const ids = views.map((view) => view.project.id);
  const columns = detailColumns(actingUser(ctx), utcDay(ctx.now));
  const rows = ids.length === 0 ? [] : await ctx.db.select({ id: projects.id, ...columns }).from(projects).where(inArray(projects.id, ids));
  const columnsById = new Map(rows.map((row) => [row.id, row]));
  const details: ProjectDetails[] = [];
  // One project's statistics at a time: each runs git a few times, and a page of a hundred must not start hundreds.
  for (const view of views) {
    const columns = columnsById.get(view.project.id) ?? { openIssues: 0, openPublicIssues: 0, membershipAccessLevel: null };
    details.push(await describeProject(view, columns, options));
  }
  return details;
}

/** `GET /projects` and `GET /users/:user_id/projects`: a page of projects with what their entities show. */
export async function listProjectDetails(
  ctx: Ctx,
  filters: ProjectListFilters,
  page: PageRequest,
  options: { statistics?: boolean } = {},
): Promise<ListPage<ProjectDetails>> {
  const list = await listProjects(ctx, filters, page);
  return { ...list, items: await withDetails(ctx, list.items, options) };
}

/** `GET /users/:user_id/projects`: the projects in a user's namespace (named by id or username) the caller can see. */
export async function listUserProjectDetails(
  ctx: Ctx,
  userReference: string,
  filters: Omit<ProjectListFilters, "ownerId">,
  page: PageRequest,
  options: { statistics?: boolean } = {},
): Promise<ListPage<ProjectDetails>> {
  const user = await getUserByIdOrUsername(ctx, userReference);
  return listProjectDetails(ctx, { ...filters, ownerId: user.id }, page, options);
}

/**
 * `GET /projects/:id`'s query, prepared once per kind of reference and of caller: a hot read for API clients, whose
 * building and rendering by the query builder cost more than PostgreSQL's work.
 */
const projectDetailsQuery = preparedQueries(
  (db, shape: { by: "id" | "path"; viewer: Viewer["kind"]; externalViewer: boolean; actingUser: boolean }) => {
    const today = placeholder("today");
    const viewer: Viewer =
      shape.viewer === "user" ? { kind: "user", id: placeholder("viewerId"), today, external: shape.externalViewer } : { kind: shape.viewer };
    const named = projectNamed(
      shape.by === "id"
        ? { by: "id", id: placeholder("projectId") }
        : { by: "path", namespacePath: placeholder("namespacePath"), projectPath: placeholder("projectPath") },
    );
    const columns = detailColumns(shape.actingUser ? { id: placeholder("actingUserId") } : null, today);
    return db
      .select({ project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewer), ...columns })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(named, projectVisibleTo(viewer)))
      .prepare(`project_details_${shape.by}_${shape.viewer}_${shape.externalViewer}_${shape.actingUser}`);
  },
);

/** `GET /projects/:id`: the project if the caller may see it, with its statistics when asked for. */
export async function getProjectDetails(ctx: Ctx, reference: string, options: { statistics?: boolean } = {}): Promise<ProjectDetails> {
  const named = parseProjectReference(reference);
  if (!named) throw new NotFoundError("Project");
  const viewer = viewerOf(ctx);
  const user = actingUser(ctx);
  const shape = { by: named.by, viewer: viewer.kind, externalViewer: viewer.kind === "user" && viewer.external, actingUser: user !== null };
  const [row] = await projectDetailsQuery(ctx.db, shape).execute({
    ...(named.by === "id" ? { projectId: named.id } : { namespacePath: named.namespacePath, projectPath: named.projectPath }),
    viewerId: viewer.kind === "user" ? viewer.id : undefined,
    actingUserId: user?.id,
    today: utcDay(ctx.now),
  });
  if (!row) throw new NotFoundError("Project");
  const { project, namespace, accessLevel, ...columns } = row;
  return describeProject({ project, namespace, accessLevel }, columns, options);
}

/** The entity of a project a verb has just changed (no statistics, which GitLab shows only on reads). */
export async function detailsOf(ctx: Ctx, view: ProjectView): Promise<ProjectDetails> {
  const [details] = await withDetails(ctx, [view]);
  return details!;
}
