import "server-only";
import { and, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, type ListPage, type OrderKey } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { fuzzySearch } from "@/lib/db/like";
import { accessLevels, groupMembers, namespaces, projects, redirectRoutes, type NamespaceRow, type ProjectVisibility } from "@/lib/db/schema";
import { ForbiddenError, GroupMovedError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { detachRepository, discardRepository, reattachRepository } from "@/lib/git/repositories";
import { instanceSettingsOf } from "@/lib/instance/settings";
import { logger } from "@/lib/log";
import { recordEvent } from "@/lib/events/record";
import type { PageRequest } from "@/lib/api/pagination";
import { noSuchId, numericReference } from "@/lib/api/param-types";
import { amongIds, utcDay, viewerOf, type Viewer } from "@/lib/projects/access";
import { projectNameProblem, projectPathProblem } from "@/lib/projects/path-rules";
import { claimGroupPath, redirectMovedGroup } from "@/lib/projects/redirect-routes";
import { usernameProblem } from "@/lib/users/username-rules";
import { directMemberGroupIds, groupAccessLevelIn, groupVisibilityParts, groupVisibleTo, memberGroupIds } from "./access";
import { canInGroup, groupAbilityMinimumLevels, visibilityWithin, type GroupAbility } from "./policy";

/** A group with what every view of it needs: its full name and the caller's role there (null: none). */
export interface GroupView {
  group: NamespaceRow;
  fullName: string;
  accessLevel: number | null;
}

/** What `:id` in `/groups/:id` names: a numeric id or a URL-encoded full path; null when it can name no group. */
function groupNamed(reference: string): SQL | null {
  const id = numericReference(reference);
  if (id === noSuchId) return null;
  return id !== null ? eq(namespaces.id, id) : sql`lower(${namespaces.fullPath}) = lower(${reference})`;
}

function groupViews(ctx: Ctx, viewer: Viewer, where: SQL | undefined) {
  return ctx.db
    .select({ group: namespaces, fullName: namespaces.fullName, accessLevel: groupAccessLevelIn(viewer) })
    .from(namespaces)
    .where(and(eq(namespaces.kind, "group"), where))
    .$dynamic();
}

/** The group if the caller may see it; otherwise 404 ("Group Not Found"), so private groups look like missing ones. */
export async function getVisibleGroup(ctx: Ctx, reference: string): Promise<GroupView> {
  const named = groupNamed(reference);
  const viewer = viewerOf(ctx);
  const [row] = named ? await groupViews(ctx, viewer, and(named, groupVisibleTo(viewer))) : [];
  if (!row) throw new NotFoundError("Group");
  return row;
}

/**
 * The group at a full path, if the caller may see it; null otherwise. For URLs that carry a full path only (pages,
 * feeds), where a group whose path is all digits must not be read as an id.
 */
export async function findVisibleGroup(ctx: Ctx, fullPath: string): Promise<GroupView | null> {
  const viewer = viewerOf(ctx);
  const [row] = await groupViews(ctx, viewer, and(sql`lower(${namespaces.fullPath}) = lower(${fullPath})`, groupVisibleTo(viewer)));
  return row ?? null;
}

/**
 * Where a group named by a path it had before a rename or a move is now (its full path today), if the visitor may see
 * it, so its old pages lead there as GitLab follows redirect routes; null otherwise.
 */
export async function movedGroupPath(ctx: Ctx, oldFullPath: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ fullPath: namespaces.fullPath })
    .from(redirectRoutes)
    .innerJoin(namespaces, eq(namespaces.id, redirectRoutes.namespaceId))
    .where(and(sql`lower(${redirectRoutes.path}) = lower(${oldFullPath})`, eq(namespaces.kind, "group"), groupVisibleTo(viewerOf(ctx))));
  return row?.fullPath ?? null;
}

/**
 * `findVisibleGroup`, or 404 ("Group Not Found"): a `GroupMovedError` when the path is one the group had before a rename
 * or a move (a 404 wherever the move is not followed; feeds follow it).
 */
export async function getVisibleGroupByFullPath(ctx: Ctx, fullPath: string): Promise<GroupView> {
  const view = await findVisibleGroup(ctx, fullPath);
  if (view) return view;
  const moved = await movedGroupPath(ctx, fullPath);
  throw moved ? new GroupMovedError(moved) : new NotFoundError("Group");
}

/** The group, if the caller's role there allows `ability`: 404 when they cannot see it, 403 when they can. */
export async function getGroupWithAbility(ctx: Ctx, reference: string, ability: GroupAbility): Promise<GroupView> {
  const view = await getVisibleGroup(ctx, reference);
  if (!canInGroup(view, ability)) throw new ForbiddenError();
  return view;
}

export interface NewGroup {
  name: string;
  path: string;
  parentId?: number;
  visibility?: ProjectVisibility;
  description?: string;
}

function groupInputProblems(input: { name?: string; path?: string; description?: string }, topLevel: boolean): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const nameIssue = input.name === undefined ? undefined : projectNameProblem(input.name);
  if (nameIssue) errors.name = [nameIssue];
  // A top-level group's path is the first segment of its URLs, as a username is, so the same names are reserved.
  const pathIssue = input.path === undefined ? undefined : topLevel ? usernameProblem(input.path) : projectPathProblem(input.path);
  if (pathIssue) errors.path = [pathIssue];
  if (input.description !== undefined && input.description.length > 500) errors.description = ["is too long (maximum is 500 characters)"];
  return errors;
}

function visibilityProblem(visibility: ProjectVisibility, parent: NamespaceRow | null): string | undefined {
  if (parent && !visibilityWithin(visibility, parent.visibility)) {
    return `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`;
  }
  return undefined;
}

/**
 * How deep groups nest: a top-level group and 20 levels of subgroups, as GitLab (`NUMBER_OF_ANCESTORS_ALLOWED`), which
 * also bounds what every inherited-role check reads (one probe per ancestor).
 */
export const maxNamespaceDepth = 21;

/**
 * `POST /groups`: a top-level group (admins, and users while the instance lets them: `can_create_group`) or a
 * subgroup (the parent's Maintainers and Owners); the creator becomes its Owner. Private unless asked otherwise, and
 * never more visible than its parent. Records the group's `created` event, authored by the creator.
 */
export async function createGroup(ctx: Ctx, input: NewGroup): Promise<GroupView> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  let parent: GroupView | null = null;
  if (input.parentId !== undefined) {
    parent = await getVisibleGroup(ctx, String(input.parentId)).catch(() => {
      throw new NotFoundError("Parent group");
    });
    if (!canInGroup(parent, "createSubgroup")) throw new ForbiddenError();
  } else if (!user.isAdmin && !(await instanceSettingsOf(ctx.db)).canCreateGroup) {
    throw new ForbiddenError();
  }
  const visibility = input.visibility ?? "private";
  const errors = groupInputProblems(input, parent === null);
  const visibilityIssue = visibilityProblem(visibility, parent?.group ?? null);
  if (visibilityIssue) errors.visibility_level = [visibilityIssue];
  if (parent && parent.group.traversalIds.length >= maxNamespaceDepth) errors.parent_id = ["has too deep level of nesting"];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return savingPath(async () => {
    const group = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(namespaces)
        .values({
          kind: "group",
          name: input.name.trim(),
          path: input.path,
          parentId: parent?.group.id ?? null,
          visibility,
          description: input.description ?? "",
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })
        .returning();
      if (!row) throw new Error("insert into namespaces returned no row");
      await claimGroupPath(tx, row.fullPath);
      await tx.insert(groupMembers).values({ groupId: row.id, userId: user.id, accessLevel: accessLevels.owner, createdById: user.id, createdAt: ctx.now });
      await recordEvent(tx, { projectId: null, groupId: row.id, authorId: user.id, action: "created", createdAt: ctx.now });
      return row;
    });
    return { group, fullName: parent ? `${parent.fullName} / ${group.name}` : group.name, accessLevel: accessLevels.owner };
  });
}

/**
 * Where the new-group form would put a group: below `parentId` for that group's Maintainers and Owners, at the top level
 * for admins and, while the instance lets them, everyone; null when the caller may not create one there.
 */
export async function newGroupPlace(ctx: Ctx, parentId: number | undefined): Promise<{ parent: GroupView | null } | null> {
  const user = actingUser(ctx);
  if (!user) return null;
  if (parentId === undefined) return user.isAdmin || (await instanceSettingsOf(ctx.db)).canCreateGroup ? { parent: null } : null;
  const parent = await getVisibleGroup(ctx, String(parentId)).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
  return parent && canInGroup(parent, "createSubgroup") ? { parent } : null;
}

/** A save that may take a full path another namespace has: GitLab's "has already been taken" on `path`. */
async function savingPath<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (violatedUniqueConstraint(error) === "namespaces_full_path_lower_key") throw new ValidationError({ path: ["has already been taken"] });
    throw error;
  }
}

export interface GroupChanges {
  name?: string;
  path?: string;
  description?: string;
  visibility?: ProjectVisibility;
}

/**
 * `PUT /groups/:id` (Owners). A group is never more visible than its parent, nor less than its subgroups and projects.
 * A new path moves every namespace below it (the database's trigger), and their projects' URLs follow.
 */
export async function updateGroup(ctx: Ctx, reference: string, changes: GroupChanges): Promise<GroupView> {
  const view = await getGroupWithAbility(ctx, reference, "updateGroup");
  const { group } = view;
  const errors = groupInputProblems(changes, group.parentId === null);
  if (changes.visibility !== undefined && changes.visibility !== group.visibility) {
    const [parent] = group.parentId === null ? [] : await ctx.db.select().from(namespaces).where(eq(namespaces.id, group.parentId));
    const issue = visibilityProblem(changes.visibility, parent ?? null) ?? (await moreVisibleBelow(ctx, group, changes.visibility));
    if (issue) errors.visibility_level = [issue];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return savingPath(async () => {
    const updated = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(namespaces)
        .set({ name: changes.name?.trim(), path: changes.path, description: changes.description, visibility: changes.visibility, updatedAt: ctx.now })
        .where(eq(namespaces.id, group.id))
        .returning();
      if (!row) throw new NotFoundError("Group");
      await redirectMovedGroup(tx, inSubtreeOf(row), group.fullPath, row.fullPath);
      return row;
    });
    return { ...view, group: updated, fullName: view.fullName.slice(0, view.fullName.length - group.name.length) + updated.name };
  });
}

/**
 * The namespaces at or below `group` (itself included): those whose ancestry holds it, read from
 * `namespaces_traversal_ids_gin`, whose statistics tell PostgreSQL how much of the instance a group holds, so a list of
 * a small group's issues reads them by project while a large group's walks the list's order.
 */
function inSubtreeOf(group: NamespaceRow): SQL {
  return sql`${namespaces.traversalIds} && array[${group.id}::integer]`;
}

/** The ids of the group and every namespace below it. */
export function groupSubtree(group: NamespaceRow): SQL {
  return sql`select ${namespaces.id} from ${namespaces} where ${inSubtreeOf(group)}`;
}

function visibilityRank(column: SQL.Aliased | SQL | typeof namespaces.visibility | typeof projects.visibility): SQL {
  return sql`case ${column} when 'public' then 2 when 'internal' then 1 else 0 end`;
}

/** GitLab's refusal to make a group less visible than a subgroup or a project in it. */
async function moreVisibleBelow(ctx: Ctx, group: NamespaceRow, visibility: ProjectVisibility): Promise<string | undefined> {
  const rank = { private: 0, internal: 1, public: 2 }[visibility];
  const [subgroup] = await ctx.db
    .select({ id: namespaces.id })
    .from(namespaces)
    .where(and(inSubtreeOf(group), ne(namespaces.id, group.id), sql`${visibilityRank(namespaces.visibility)} > ${rank}`))
    .limit(1);
  if (subgroup) return `${visibility} is not allowed since there are sub-groups with higher visibility.`;
  const [project] = await ctx.db
    .select({ id: projects.id })
    .from(projects)
    .where(and(sql`${projects.namespaceId} in (${groupSubtree(group)})`, sql`${visibilityRank(projects.visibility)} > ${rank}`))
    .limit(1);
  if (project) return `${visibility} is not allowed since this group contains projects with higher visibility.`;
  return undefined;
}

/**
 * `DELETE /groups/:id` (Owners): the group goes with its subgroups and every project in them, each project's
 * repository as `DELETE /projects/:id` removes it (moved out of reach first, put back if the deletion fails, removed
 * from disk once it is committed), and their issues, memberships and events by the database's cascades.
 */
export async function deleteGroup(ctx: Ctx, reference: string): Promise<void> {
  const view = await getGroupWithAbility(ctx, reference, "removeGroup");
  const subtree = groupSubtree(view.group);
  const doomed = await ctx.db.select({ id: projects.id }).from(projects).where(sql`${projects.namespaceId} in (${subtree})`);
  const detached: { projectId: number; path: string }[] = [];
  try {
    for (const { id } of doomed) {
      const path = await detachRepository(id);
      if (path) detached.push({ projectId: id, path });
    }
    await ctx.db.transaction(async (tx) => {
      await tx.delete(projects).where(sql`${projects.namespaceId} in (${subtree})`);
      // One statement for the whole subtree: the parent key is checked at its end, when no child is left.
      await tx.delete(namespaces).where(sql`${namespaces.id} in (${subtree})`);
    });
  } catch (error) {
    for (const { projectId, path } of detached) await reattachRepository(projectId, path);
    throw error;
  }
  for (const { projectId, path } of detached) {
    await discardRepository(path).catch((error: unknown) => {
      logger.error({ err: error, projectId, detached: path }, "could not remove a deleted group's project repository");
    });
  }
}

export const groupOrderFields = ["name", "path", "id"] as const;

/** `GET /groups`' filters, with GitLab's meanings (GroupsFinder). */
export interface GroupListFilters {
  /** Every group the caller may see, rather than those they belong to (the default for signed-in users who are not admins). */
  allAvailable?: boolean;
  /** Groups where the caller is an Owner (directly or from above). */
  owned?: boolean;
  minAccessLevel?: number;
  search?: string;
  topLevelOnly?: boolean;
  /** Subgroups of this group (`GET /groups/:id/subgroups`). */
  parentId?: number;
  /** Groups below this one's traversal ids, at any depth (`GET /groups/:id/descendant_groups`). */
  below?: NamespaceRow;
  orderBy?: (typeof groupOrderFields)[number];
  sort?: "asc" | "desc";
}

const groupOrderColumns = { name: namespaces.name, path: namespaces.path, id: namespaces.id } as const;

/** Which groups a list keeps among those the caller sees, as GitLab's GroupsFinder chooses its collection. */
function groupCollection(ctx: Ctx, filters: GroupListFilters): SQL | undefined {
  const user = actingUser(ctx);
  const today = utcDay(ctx.now);
  // GitLab's `owned_groups`: the user's own Owner memberships, not the subgroups below them (unlike `min_access_level`).
  if (filters.owned) return user ? sql`${namespaces.id} in (${directMemberGroupIds(user.id, today, accessLevels.owner)})` : sql`false`;
  if (filters.minAccessLevel !== undefined) {
    return user ? amongIds(namespaces.id, memberGroupIds(user.id, today, filters.minAccessLevel)) : sql`false`;
  }
  // Signed-in users who are not admins see the groups they belong to unless they ask for all they may see; subgroup
  // lists show every visible subgroup, as GitLab's `find_groups` with a parent does.
  const scoped = filters.parentId !== undefined || filters.below !== undefined;
  if (user && !user.isAdmin && !filters.allAvailable && !scoped) return amongIds(namespaces.id, memberGroupIds(user.id, today));
  return undefined;
}

function groupFilterConditions(ctx: Ctx, filters: GroupListFilters): SQL | undefined {
  return and(
    eq(namespaces.kind, "group"),
    groupCollection(ctx, filters),
    filters.search?.trim() ? fuzzySearch([sql`${namespaces.name}`, sql`${namespaces.path}`], filters.search) : undefined,
    filters.topLevelOnly ? isNull(namespaces.parentId) : undefined,
    filters.parentId === undefined ? undefined : eq(namespaces.parentId, filters.parentId),
    filters.below === undefined
      ? undefined
      : and(inSubtreeOf(filters.below), ne(namespaces.id, filters.below.id)),
  );
}

/** Groups the caller may see, filtered as `GET /groups` filters them, by name by default. */
export async function listGroups(ctx: Ctx, filters: GroupListFilters, page: PageRequest): Promise<ListPage<GroupView>> {
  const viewer = viewerOf(ctx);
  const conditions = groupFilterConditions(ctx, filters);
  // A few groups (a user's, a group's subgroups) or a search are one part; the whole list reads each level in order.
  const narrow = groupCollection(ctx, filters) !== undefined || filters.parentId !== undefined || filters.below !== undefined || Boolean(filters.search?.trim());
  const parts = narrow ? [and(groupVisibleTo(viewer), conditions)] : groupVisibilityParts(viewer).map((part) => and(part, conditions));
  const orderBy = filters.orderBy ?? "name";
  const descending = filters.sort === "desc";
  const order: OrderKey[] = [
    ...(orderBy === "id" ? [] : [{ value: groupOrderColumns[orderBy], descending }]),
    { value: namespaces.id, descending },
  ];
  return keyedListPage(ctx.db, page, {
    order,
    branches: (keys) => parts.map((part) => ctx.db.select(keys).from(namespaces).where(part).$dynamic()),
    rows: (pageKeys, key) =>
      ctx.db
        .select({ group: namespaces, fullName: namespaces.fullName, accessLevel: groupAccessLevelIn(viewer) })
        .from(pageKeys)
        .innerJoin(namespaces, sql`${namespaces.id} = ${key(order.length - 1)}`)
        .$dynamic(),
  });
}

/** `GET /groups/:id/subgroups` and `…/descendant_groups`: the visible groups directly below, or at any depth. */
export async function listSubgroups(
  ctx: Ctx,
  reference: string,
  depth: "children" | "descendants",
  filters: GroupListFilters,
  page: PageRequest,
): Promise<ListPage<GroupView>> {
  const { group } = await getVisibleGroup(ctx, reference);
  return listGroups(ctx, depth === "children" ? { ...filters, parentId: group.id } : { ...filters, below: group }, page);
}

/** A namespace the new-project form offers. */
export interface NamespaceChoice {
  id: number;
  fullPath: string;
  kind: "user" | "group";
}

/**
 * Where the caller may create projects, for the new-project form: their own namespace first, then the groups where
 * their role allows it (the first hundred by full path; the API takes any other by `namespace_id`).
 */
export async function newProjectNamespaces(ctx: Ctx): Promise<NamespaceChoice[]> {
  const user = actingUser(ctx);
  if (!user) return [];
  const [own, groups] = await Promise.all([
    ctx.db.select({ id: namespaces.id, fullPath: namespaces.fullPath, kind: namespaces.kind }).from(namespaces).where(eq(namespaces.ownerId, user.id)),
    listGroups(ctx, { minAccessLevel: groupAbilityMinimumLevels.createProject, orderBy: "path" }, { page: 1, perPage: 100, offset: 0 }),
  ]);
  const groupChoices = groups.items.map(({ group }) => ({ id: group.id, fullPath: group.fullPath, kind: group.kind }));
  return [...own, ...groupChoices.sort((a, b) => a.fullPath.localeCompare(b.fullPath))];
}

