import "server-only";
import { and, asc, count, desc, eq, ilike, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { pageWithTotal } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { containsPattern } from "@/lib/db/like";
import {
  accessLevels,
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
import { getUserByUsername } from "@/lib/users/users";
import type { PageRequest } from "@/lib/api/pagination";
import { accessLevelIn, isMemberOf, projectVisibleTo, viewerOf } from "./access";
import { pathFromName, projectNameProblem, projectPathProblem } from "./path-rules";

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
  // Ids beyond the integer column's range name no project (rather than failing the query).
  if (/^\d+$/.test(reference)) return Number(reference) <= 2_147_483_647 ? { by: "id", id: Number(reference) } : null;
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
    .select({ project: projects, namespace: namespaces, accessLevel: accessLevelIn(viewerOf(ctx.actor)) })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(where)
    .$dynamic();
}

function countedProjects(ctx: Ctx, where: SQL | undefined) {
  return ctx.db.select({ total: count() }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where);
}

/** The project if the caller may see it; otherwise 404, so private projects are indistinguishable from missing ones. */
export async function getVisibleProject(ctx: Ctx, reference: string): Promise<ProjectView> {
  const named = parseProjectReference(reference);
  if (!named) throw new NotFoundError("Project");
  const [row] = await projectViews(ctx, and(projectNamed(named), projectVisibleTo(viewerOf(ctx.actor))));
  if (!row) throw new NotFoundError("Project");
  return row;
}

/** The project, if the caller holds at least `minimumLevel` in it: 404 when they cannot see it, 403 when they can. */
export async function getProjectWithAccess(ctx: Ctx, reference: string, minimumLevel: number): Promise<ProjectView> {
  const view = await getVisibleProject(ctx, reference);
  if (view.accessLevel === null || view.accessLevel < minimumLevel) throw new ForbiddenError();
  return view;
}

export interface ProjectListFilters {
  membership?: boolean;
  owned?: boolean;
  visibility?: ProjectVisibility;
  search?: string;
  orderBy?: "id" | "name" | "path" | "created_at" | "updated_at" | "last_activity_at";
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

/** `GET /projects`: the projects the caller can see, filtered, newest first by default. */
export async function listProjects(
  ctx: Ctx,
  filters: ProjectListFilters,
  page: PageRequest,
): Promise<{ items: ProjectView[]; total: number }> {
  const user = actingUser(ctx);
  const viewer = viewerOf(ctx.actor);
  const conditions: SQL[] = [projectVisibleTo(viewer)];
  if (filters.membership && user) conditions.push(isMemberOf(user.id));
  if (filters.owned && user) conditions.push(eq(namespaces.ownerId, user.id));
  if ((filters.membership || filters.owned) && !user) conditions.push(sql`false`);
  if (filters.visibility) conditions.push(eq(projects.visibility, filters.visibility));
  if (filters.search) {
    const pattern = containsPattern(filters.search);
    conditions.push(or(ilike(projects.name, pattern), ilike(projects.path, pattern), ilike(projects.description, pattern))!);
  }
  const where = and(...conditions);
  const direction = filters.sort === "asc" ? asc : desc;
  const orderColumn = orderColumns[filters.orderBy ?? "created_at"];

  return pageWithTotal(page, projectViews(ctx, where).orderBy(direction(orderColumn), direction(projects.id)), countedProjects(ctx, where));
}

/** A user page (`/:username`): the user and those of their projects the caller can see, newest first. */
export async function listUserProjects(
  ctx: Ctx,
  username: string,
  page: PageRequest,
): Promise<{ user: UserRow; items: ProjectView[]; total: number }> {
  const user = await getUserByUsername(ctx, username);
  const viewer = viewerOf(ctx.actor);
  const where = and(eq(namespaces.ownerId, user.id), projectVisibleTo(viewer));
  const { items, total } = await pageWithTotal(
    page,
    projectViews(ctx, where).orderBy(desc(projects.createdAt), desc(projects.id)),
    countedProjects(ctx, where),
  );
  return { user, items, total };
}
