import "server-only";
import { and, eq, gt, inArray, lt, sql, type Placeholder, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, keyedRowsFrom, placeholder, preparedQueries, type Executor, type KeyedList, type ListPage, type OrderKey } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { fuzzySearch } from "@/lib/db/like";
import {
  accessLevels,
  namespaces,
  projectMembers,
  projects,
  redirectRoutes,
  type NamespaceRow,
  type ProjectRow,
  type ProjectVisibility,
  type UserRow,
} from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, ProjectMovedError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import { logger } from "@/lib/log";
import { getUserByIdOrUsername, getUserByUsername } from "@/lib/users/users";
import type { PageRequest } from "@/lib/api/pagination";
import { noSuchId, numericReference } from "@/lib/api/param-types";
import { groupAbilityMinimumLevels, visibilityWithin } from "@/lib/groups/policy";
import {
  accessLevelIn,
  amongIds,
  hasRoleIn,
  inheritedAccessLevel,
  isMemberOf,
  memberProjectIds,
  membershipActive,
  outerNamespace,
  projectVisibleTo,
  utcDay,
  viewerOf,
  visibilityParts,
  type Viewer,
} from "./access";
import { can, type RoleAbility } from "./policy";
import { pathFromName, projectNameProblem, projectPathProblem } from "./path-rules";
import { initializeWithReadme } from "./readme";
import { claimProjectPath } from "./redirect-routes";
import { readProjectStatistics, type ProjectStatistics } from "./statistics";

export { projectVisibilities } from "@/lib/db/schema";

const groupProjectCreationLevel = groupAbilityMinimumLevels.createProject;

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
  /** Start the repository with a README on the default branch (GitLab's `initialize_with_readme`). */
  initializeWithReadme?: boolean;
  /** The namespace to create it in: the caller's own (the default) or a group where they may create projects. */
  namespaceId?: number;
}

/**
 * The namespace a new project goes to, locked for the transaction: the caller's own by default, else the one they
 * name if it is theirs or a group where their role lets them create projects (GitLab: "namespace is not valid").
 */
async function targetNamespace(tx: Executor, user: UserRow, namespaceId: number | undefined, now: Date): Promise<{ namespace: NamespaceRow; groupLevel: number | null }> {
  const where = namespaceId === undefined ? eq(namespaces.ownerId, user.id) : eq(namespaces.id, namespaceId);
  const [row] = await tx
    .select({ namespace: namespaces, groupLevel: inheritedAccessLevel(user.id, utcDay(now), outerNamespace.id) })
    .from(namespaces)
    .where(where)
    .for("share");
  if (!row) {
    if (namespaceId === undefined) throw new Error(`user ${user.id} has no namespace`);
    throw new ValidationError({ namespace: ["is not valid"] });
  }
  const { namespace } = row;
  const groupLevel = user.isAdmin ? accessLevels.owner : row.groupLevel;
  const allowed = namespace.kind === "user" ? namespace.ownerId === user.id || user.isAdmin : (groupLevel ?? 0) >= groupProjectCreationLevel;
  if (!allowed) throw new ValidationError({ namespace: ["is not valid"] });
  return { namespace, groupLevel: namespace.kind === "group" ? groupLevel : null };
}

/**
 * `POST /projects`: creates a project in the caller's namespace, makes them Owner and records `created`; with
 * `initializeWithReadme`, then writes its first commit (`initializeWithReadme` in ./readme). As GitLab's
 * `after_create_actions`, a README that cannot be written leaves the project created, with an empty repository.
 */
export async function createProject(ctx: Ctx, input: NewProject): Promise<ProjectView> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const view = await insertProject(ctx, user, input);
  if (!input.initializeWithReadme) return view;
  try {
    return { ...view, project: await initializeWithReadme(ctx.db, view, user, new Date()) };
  } catch (error) {
    logger.error({ err: error, projectId: view.project.id }, "could not write a new project's README");
    return view;
  }
}

/** The project's row, its Owner membership and its `created` event, in one transaction. */
async function insertProject(ctx: Ctx, user: UserRow, input: NewProject): Promise<ProjectView> {
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
      const { namespace, groupLevel } = await targetNamespace(tx, user, input.namespaceId, ctx.now);
      const visibility = input.visibility ?? "private";
      if (namespace.kind === "group" && !visibilityWithin(visibility, namespace.visibility)) {
        throw new ValidationError({ visibility_level: [`${visibility} is not allowed in a ${namespace.visibility} group.`] });
      }
      const [project] = await tx
        .insert(projects)
        .values({
          namespaceId: namespace.id,
          creatorId: user.id,
          name,
          path,
          description: input.description ?? null,
          visibility,
          issuesEnabled: input.issuesEnabled ?? true,
          createdAt: ctx.now,
          lastActivityAt: ctx.now,
        })
        .returning();
      if (!project) throw new Error("insert into projects returned no row");
      await claimProjectPath(tx, `${namespace.fullPath}/${project.path}`);
      await recordEvent(tx, { projectId: project.id, authorId: user.id, action: "created", createdAt: ctx.now });
      // In a group the creator keeps the role they inherit, as on GitLab; a personal project's creator is its Owner.
      if (groupLevel !== null) return { project, namespace, accessLevel: groupLevel };
      await tx.insert(projectMembers).values({
        projectId: project.id,
        userId: user.id,
        accessLevel: accessLevels.owner,
        createdById: user.id,
        createdAt: ctx.now,
      });
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
    sql`lower(${namespaces.fullPath}) = lower(${reference.namespacePath})`,
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

/**
 * Why a reference names no project the caller may see: a path a visible project had before a rename (GitLab's
 * `find_by_full_path(…, follow_redirects: true)`, looked up only when no project has the path now), or nothing at all.
 */
export async function missingProject(ctx: Ctx, named: ProjectReference | null): Promise<NotFoundError> {
  if (named?.by === "path") {
    const [moved] = await ctx.db
      .select({ id: projects.id, namespacePath: namespaces.fullPath, projectPath: projects.path })
      .from(redirectRoutes)
      .innerJoin(projects, eq(projects.id, redirectRoutes.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(sql`lower(${redirectRoutes.path}) = lower(${`${named.namespacePath}/${named.projectPath}`})`, projectVisibleTo(viewerOf(ctx))));
    if (moved) return new ProjectMovedError(moved.id, `${moved.namespacePath}/${moved.projectPath}`);
  }
  return new NotFoundError("Project");
}

/**
 * The project if the caller may see it; otherwise 404, so private projects are indistinguishable from missing ones
 * (`ProjectMovedError`, a 404, when the path is one the project had before a rename).
 */
export async function getVisibleProject(ctx: Ctx, reference: string): Promise<ProjectView> {
  const named = parseProjectReference(reference);
  if (!named) throw new NotFoundError("Project");
  const [row] = await projectViews(ctx, and(projectNamed(named), projectVisibleTo(viewerOf(ctx))));
  if (!row) throw await missingProject(ctx, named);
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
  /** Projects in this namespace (a group's own projects). */
  namespaceId?: number;
  /** Projects in the namespaces this selects (a group's and its subgroups'). */
  inNamespaces?: SQL;
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

/** The projects in a user's personal namespace, as a condition on `projects` alone. */
function inNamespaceOf(userId: number): SQL {
  return sql`${projects.namespaceId} = (select ${namespaces.id} from ${namespaces} where ${namespaces.ownerId} = ${userId})`;
}

/**
 * The projects in a user's namespace or with their membership in force, as one set of ids PostgreSQL reads from the
 * user's memberships and namespace (an OR of the two conditions would be checked on every visible project instead).
 */
function ownedOrJoinedBy(userId: number, today: string): SQL {
  const joined = memberProjectIds(userId, today);
  const owned = sql`select ${projects.id} from ${projects} where ${inNamespaceOf(userId)}`;
  return amongIds(projects.id, sql`${joined} union all ${owned}`);
}

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
  if (filters.owned) return inNamespaceOf(user.id);
  if (filters.minAccessLevel !== undefined) return hasRoleIn(user.id, today, filters.minAccessLevel);
  return isMemberOf(user.id, today);
}

/** GitLab's project search: each term in path, name or description; with namespaces, in the full path and name. */
function projectSearch(query: string, withNamespaces: boolean): SQL {
  const columns: SQL[] = withNamespaces
    ? [sql`${namespaces.fullPath} || '/' || ${projects.path}`, sql`${namespaces.name} || ' / ' || ${projects.name}`, sql`${projects.description}`]
    : [sql`${projects.path}`, sql`${projects.name}`, sql`${projects.description}`];
  return fuzzySearch(columns, query) ?? sql`true`;
}

function searchesNamespaces(filters: ProjectListFilters): boolean {
  return Boolean(filters.searchNamespaces && filters.search?.trim());
}

/** The filters, as conditions on `projects` (and `namespaces` when the search spans them); visibility aside. */
function projectFilterConditions(ctx: Ctx, filters: ProjectListFilters): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    ownProjects(ctx, filters),
    filters.ownerId === undefined ? undefined : inNamespaceOf(filters.ownerId),
    filters.ownerOrMemberId === undefined ? undefined : ownedOrJoinedBy(filters.ownerOrMemberId, utcDay(ctx.now)),
    filters.namespaceId === undefined ? undefined : eq(projects.namespaceId, filters.namespaceId),
    filters.inNamespaces === undefined ? undefined : sql`${projects.namespaceId} in (${filters.inNamespaces})`,
    filters.visibility === undefined ? undefined : eq(projects.visibility, filters.visibility),
    filters.search?.trim() ? projectSearch(filters.search, searchesNamespaces(filters)) : undefined,
    filters.archived === undefined ? undefined : eq(projects.archived, filters.archived),
    filters.withIssuesEnabled ? eq(projects.issuesEnabled, true) : undefined,
    filters.idAfter === undefined ? undefined : gt(projects.id, filters.idAfter),
    filters.idBefore === undefined ? undefined : lt(projects.id, filters.idBefore),
    filters.lastActivityAfter === undefined ? undefined : gt(projects.lastActivityAt, filters.lastActivityAfter),
    filters.lastActivityBefore === undefined ? undefined : lt(projects.lastActivityAt, filters.lastActivityBefore),
  ];
  return and(...conditions);
}

/**
 * Filters that keep only a few projects, found from a user's memberships or namespace, and searches, which read every
 * project's text whatever the order: reading each visibility level in order would not save them any work, so such a
 * list is one part with the whole visibility rule.
 */
function unorderedFilter(filters: ProjectListFilters): boolean {
  return Boolean(
    filters.owned ||
      filters.membership ||
      filters.minAccessLevel !== undefined ||
      filters.ownerId !== undefined ||
      filters.ownerOrMemberId !== undefined ||
      filters.namespaceId !== undefined ||
      filters.inNamespaces !== undefined ||
      filters.search?.trim(),
  );
}

/**
 * The projects a list shows, as a `KeyedList`: one part per visibility level the caller may see (each read in the
 * list's order from its `projects_visibility_*` index), or one part when the filters keep a few projects. Newest first
 * by default, with the id as the tie-breaker.
 */
function projectList(ctx: Ctx, filters: ProjectListFilters): KeyedList<ReturnType<typeof projectRows>> {
  const viewer = viewerOf(ctx);
  const conditions = projectFilterConditions(ctx, filters);
  const parts = unorderedFilter(filters)
    ? [and(projectVisibleTo(viewer), conditions)]
    : visibilityParts(viewer).map((part) => and(part, conditions));
  const descending = filters.sort !== "asc";
  const orderBy = filters.orderBy ?? "created_at";
  const order: OrderKey[] = [...(orderBy === "id" ? [] : [{ value: orderColumns[orderBy], descending }]), { value: projects.id, descending }];
  const withNamespaces = searchesNamespaces(filters);
  return {
    order,
    branches: (keys) =>
      parts.map((part) => {
        const from = ctx.db.select(keys).from(projects).$dynamic();
        return (withNamespaces ? from.innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)) : from).where(part);
      }),
    rows: (pageKeys, key) => projectRows(ctx, viewer, pageKeys, key(order.length - 1)),
  };
}

function projectRows(ctx: Ctx, viewer: Viewer, pageKeys: SQL, projectId: SQL) {
  return ctx.db
    .select({ project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewer) })
    .from(pageKeys)
    .innerJoin(projects, sql`${projects.id} = ${projectId}`)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .$dynamic();
}

/** Projects the caller can see, filtered as `GET /projects` filters them, newest first by default. */
export async function listProjects(ctx: Ctx, filters: ProjectListFilters, page: PageRequest): Promise<ListPage<ProjectView>> {
  return keyedListPage(ctx.db, page, projectList(ctx, filters));
}

/** A keyset page: the first projects of the list (the filters' `idAfter`/`idBefore` carry the position), never counted. */
export interface KeysetPage<Item> {
  items: Item[];
  hasNext: boolean;
}

/** How a project list is paged: by offset (counted, as `listPage`), or by keyset (GitLab's `pagination=keyset`). */
export type ProjectPaging = { kind: "offset"; page: PageRequest } | { kind: "keyset"; perPage: number };

async function projectPage(ctx: Ctx, filters: ProjectListFilters, paging: ProjectPaging): Promise<ListPage<ProjectView> | KeysetPage<ProjectView>> {
  if (paging.kind === "offset") return listProjects(ctx, filters, paging.page);
  const rows = await keyedRowsFrom(projectList(ctx, filters), paging.perPage + 1);
  return { items: rows.slice(0, paging.perPage), hasNext: rows.length > paging.perPage };
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
  /** The caller's highest role in force in the project's group and the groups above it (GitLab's `group_access`). */
  groupAccessLevel: number | null;
}

type MemberRoles = Pick<ProjectDetails, "membershipAccessLevel" | "groupAccessLevel">;

/**
 * The acting user's own role in the project of the surrounding query, as a column, so a project and the details of
 * its entity come in one round trip. The user's id and the day may be placeholders, for the statement
 * `getProjectDetails` prepares. Open-issue counts are the project's own columns, kept by the database.
 */
function memberRoleColumns(user: { id: number | Placeholder } | null, today: string | Placeholder) {
  if (!user) return { membershipAccessLevel: sql<number | null>`null::integer`, groupAccessLevel: sql<number | null>`null::integer` };
  return {
    membershipAccessLevel: sql<number | null>`(select ${projectMembers.accessLevel} from ${projectMembers} where ${projectMembers.projectId} = ${projects.id} and ${projectMembers.userId} = ${user.id} and ${membershipActive(today)})`,
    groupAccessLevel: inheritedAccessLevel(user.id, today, sql`${projects.namespaceId}`),
  };
}

async function describeProject(view: ProjectView, roles: MemberRoles, options: { statistics?: boolean }): Promise<ProjectDetails> {
  const { project } = view;
  return {
    view,
    openIssuesCount: can(view, "readConfidentialIssues") ? project.openIssuesCount : project.openNonConfidentialIssuesCount,
    statistics: options.statistics && can(view, "readStatistics") ? await readProjectStatistics(project) : null,
    ...roles,
  };
}

const noRoles: MemberRoles = { membershipAccessLevel: null, groupAccessLevel: null };

async function withDetails(ctx: Ctx, views: ProjectView[], options: { statistics?: boolean } = {}): Promise<ProjectDetails[]> {
  const user = actingUser(ctx);
  const ids = views.map((view) => view.project.id);
  const rows =
    user && ids.length > 0
      ? await ctx.db
          .select({ id: projects.id, ...memberRoleColumns(user, utcDay(ctx.now)) })
          .from(projects)
          .where(inArray(projects.id, ids))
      : [];
  const rolesById = new Map<number, MemberRoles>(rows.map(({ id, ...roles }) => [id, roles]));
  const details: ProjectDetails[] = [];
  // One project's statistics at a time: each runs git a few times, and a page of a hundred must not start hundreds.
  for (const view of views) details.push(await describeProject(view, rolesById.get(view.project.id) ?? noRoles, options));
  return details;
}

/** `GET /projects` and `GET /users/:user_id/projects`: a page of projects with what their entities show. */
export async function listProjectDetails(
  ctx: Ctx,
  filters: ProjectListFilters,
  paging: ProjectPaging,
  options: { statistics?: boolean } = {},
): Promise<ListPage<ProjectDetails> | KeysetPage<ProjectDetails>> {
  const list = await projectPage(ctx, filters, paging);
  return { ...list, items: await withDetails(ctx, list.items, options) };
}

/** `GET /users/:user_id/projects`: the projects in a user's namespace (named by id or username) the caller can see. */
export async function listUserProjectDetails(
  ctx: Ctx,
  userReference: string,
  filters: Omit<ProjectListFilters, "ownerId">,
  paging: ProjectPaging,
  options: { statistics?: boolean } = {},
): Promise<ListPage<ProjectDetails> | KeysetPage<ProjectDetails>> {
  const user = await getUserByIdOrUsername(ctx, userReference);
  return listProjectDetails(ctx, { ...filters, ownerId: user.id }, paging, options);
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
    const roles = memberRoleColumns(shape.actingUser ? { id: placeholder("actingUserId") } : null, today);
    return db
      .select({ project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewer), ...roles })
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
  if (!row) throw await missingProject(ctx, named);
  const { project, namespace, accessLevel, membershipAccessLevel, groupAccessLevel } = row;
  return describeProject({ project, namespace, accessLevel }, { membershipAccessLevel, groupAccessLevel }, options);
}

/** The entity of a project a verb has just changed (no statistics, which GitLab shows only on reads). */
export async function detailsOf(ctx: Ctx, view: ProjectView): Promise<ProjectDetails> {
  const [details] = await withDetails(ctx, [view]);
  return details!;
}
