import "server-only";
import { and, count, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, listPage, type ListPage, type OrderKey } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { accessLevels, groupMembers, projectMembers, users, type UserRow } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, UnauthorizedError, ValidationError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { recordEvent } from "@/lib/events/record";
import { groupMembershipActive, isAccessLevel, isMembershipActive, membershipActive, utcDay } from "@/lib/projects/access";
import { addByUsername, type MemberChanges, type MemberFilters, type NewMember } from "@/lib/projects/members";
import { getVisibleProject } from "@/lib/projects/projects";
import { findUserById, userSearch } from "@/lib/users/users";
import { findVisibleGroup, getGroupWithAbility, getVisibleGroup, type GroupView } from "./groups";
import { canInGroup } from "./policy";

/** A membership as the member entity shows it, direct or inherited. */
export interface Membership {
  accessLevel: number;
  expiresAt: string | null;
  createdAt: Date;
}

export interface GroupMemberView {
  user: UserRow;
  member: Membership;
}

/** `GET /groups/:id/members`: the group's direct members, oldest membership first, for anyone who sees the group. */
export async function listGroupMembers(ctx: Ctx, reference: string, page: PageRequest, filters: MemberFilters = {}): Promise<ListPage<GroupMemberView>> {
  const { group } = await getVisibleGroup(ctx, reference);
  return membersOfGroup(ctx, group.id, page, filters);
}

/** A page of a group's direct members, for a group already found visible to the caller. */
function membersOfGroup(ctx: Ctx, groupId: number, page: PageRequest, filters: MemberFilters): Promise<ListPage<GroupMemberView>> {
  const where = and(
    eq(groupMembers.groupId, groupId),
    filters.query ? userSearch(ctx, filters.query) : undefined,
    filters.userIds === undefined ? undefined : inArray(groupMembers.userId, filters.userIds),
  );
  const order: OrderKey[] = [
    { value: groupMembers.createdAt, descending: false },
    { value: groupMembers.userId, descending: false },
  ];
  return keyedListPage(ctx.db, page, {
    order,
    branches: (keys) => {
      const members = ctx.db.select(keys).from(groupMembers).$dynamic();
      return [(filters.query ? members.innerJoin(users, eq(users.id, groupMembers.userId)) : members).where(where)];
    },
    rows: (pageKeys, key) =>
      ctx.db
        .select({ user: users, member: groupMembers })
        .from(pageKeys)
        .innerJoin(groupMembers, and(eq(groupMembers.groupId, groupId), sql`${groupMembers.userId} = ${key(1)}`))
        .innerJoin(users, eq(users.id, groupMembers.userId))
        .$dynamic(),
  });
}

async function directGroupMember(ctx: Ctx, groupId: number, userId: number): Promise<GroupMemberView> {
  const [row] = await ctx.db
    .select({ user: users, member: groupMembers })
    .from(groupMembers)
    .innerJoin(users, eq(users.id, groupMembers.userId))
    .where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.userId, userId)));
  if (!row) throw new NotFoundError("Member");
  return row;
}

export async function getGroupMember(ctx: Ctx, reference: string, userId: number): Promise<GroupMemberView> {
  const { group } = await getVisibleGroup(ctx, reference);
  return directGroupMember(ctx, group.id, userId);
}

function checkLevel(ctx: Ctx, level: number, expiresAt: string | null | undefined): void {
  if (!isAccessLevel(level)) throw new ParameterError("access_level", "does not have a valid value");
  if (expiresAt && expiresAt < utcDay(ctx.now)) throw new ValidationError({ expires_at: ["cannot be a date in the past"] });
}

/** `POST /groups/:id/members` (Owners): adds a member and records the group's `joined`, authored by the new member. */
export async function addGroupMember(ctx: Ctx, reference: string, input: NewMember): Promise<GroupMemberView> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const { group } = await getGroupWithAbility(ctx, reference, "manageMembers");
  checkLevel(ctx, input.accessLevel, input.expiresAt);
  const user = await findUserById(ctx.db, input.userId);
  if (!user) throw new NotFoundError("User");
  try {
    const member = await ctx.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(groupMembers)
        .values({ groupId: group.id, userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: actor.id, createdAt: ctx.now })
        .returning();
      if (!inserted) throw new Error("insert into group_members returned no row");
      await recordEvent(tx, { projectId: null, groupId: group.id, authorId: user.id, action: "joined", createdAt: ctx.now });
      return inserted;
    });
    return { user, member };
  } catch (error) {
    if (violatedUniqueConstraint(error) !== undefined) throw new ConflictError("Member already exists");
    throw error;
  }
}

/** The group members page's form: the member named by username. */
export async function addGroupMemberByUsername(ctx: Ctx, reference: string, input: { username: string; accessLevel: number }): Promise<GroupMemberView> {
  // Check the caller's rights first, so the answer does not reveal which usernames exist to those who may not add.
  await getGroupWithAbility(ctx, reference, "manageMembers");
  return addByUsername(ctx, input.username, "group", (userId) => addGroupMember(ctx, reference, { userId, accessLevel: input.accessLevel }));
}

/** `PUT /groups/:id/members/:user_id` (Owners); the last Owner in force is not demoted. */
export async function updateGroupMember(ctx: Ctx, reference: string, userId: number, changes: MemberChanges): Promise<GroupMemberView> {
  const { group } = await getGroupWithAbility(ctx, reference, "manageMembers");
  checkLevel(ctx, changes.accessLevel, changes.expiresAt);
  const existing = await directGroupMember(ctx, group.id, userId);
  const endsOwnership = changes.accessLevel !== accessLevels.owner || (changes.expiresAt ?? null) !== null;
  if (existing.member.accessLevel === accessLevels.owner && endsOwnership) await checkNotLastOwner(ctx, group.id, group.parentId, userId);
  const [member] = await ctx.db
    .update(groupMembers)
    .set({ accessLevel: changes.accessLevel, ...(changes.expiresAt === undefined ? {} : { expiresAt: changes.expiresAt }) })
    .where(and(eq(groupMembers.groupId, group.id), eq(groupMembers.userId, userId)))
    .returning();
  if (!member) throw new NotFoundError("Member");
  return { user: existing.user, member };
}

/**
 * `DELETE /groups/:id/members/:user_id`: Owners remove others; anyone may leave, unless they are the last Owner.
 * Records the group's `left`, authored by the member (`expired` when the membership had already ended), as for projects.
 */
export async function removeGroupMember(ctx: Ctx, reference: string, userId: number): Promise<void> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getVisibleGroup(ctx, reference);
  if (actor.id !== userId && !canInGroup(view, "manageMembers")) throw new ForbiddenError();
  const { member } = await directGroupMember(ctx, view.group.id, userId);
  if (member.accessLevel === accessLevels.owner) await checkNotLastOwner(ctx, view.group.id, view.group.parentId, userId);
  await ctx.db.transaction(async (tx) => {
    const removed = await tx
      .delete(groupMembers)
      .where(and(eq(groupMembers.groupId, view.group.id), eq(groupMembers.userId, userId)))
      .returning({ userId: groupMembers.userId });
    if (removed.length === 0) throw new NotFoundError("Member");
    const action = isMembershipActive(member, ctx.now) ? "left" : "expired";
    await recordEvent(tx, { projectId: null, groupId: view.group.id, authorId: userId, action, createdAt: ctx.now });
  });
}

/** A top-level group keeps an Owner in force (a subgroup has its parent's). */
async function checkNotLastOwner(ctx: Ctx, groupId: number, parentId: number | null, changedUserId: number): Promise<void> {
  if (parentId !== null) return;
  const [others] = await ctx.db
    .select({ total: count() })
    .from(groupMembers)
    .where(
      and(
        eq(groupMembers.groupId, groupId),
        eq(groupMembers.accessLevel, accessLevels.owner),
        ne(groupMembers.userId, changedUserId),
        groupMembershipActive(utcDay(ctx.now)),
      ),
    );
  if ((others?.total ?? 0) === 0) throw new ForbiddenError("a group's last Owner cannot be removed or demoted");
}

/**
 * The members in force of a project or group and of every group above it, one row per user with their highest role
 * (GitLab's `…/members/all`), by user id. Each source is read in user order from its primary key and no further than
 * the page reaches, so a page costs its depth times the sources, whatever the groups hold.
 */
function allMembersQuery(ctx: Ctx, sources: { projectId?: number; groupIds: number[] }, reach: number | null, filters: MemberFilters): SQL {
  const today = utcDay(ctx.now);
  const limit = reach === null ? sql`` : sql` limit ${reach}`;
  const picked = (column: SQL) =>
    and(
      filters.userIds === undefined ? undefined : sql`${column} in (${sql.join(filters.userIds.map((id) => sql`${id}`), sql`, `)})`,
      filters.query ? sql`exists (select 1 from ${users} where ${users.id} = ${column} and ${userSearch(ctx, filters.query)})` : undefined,
    ) ?? sql`true`;
  const branches: SQL[] = sources.groupIds.map(
    (groupId) => sql`(select ${groupMembers.userId} as user_id, ${groupMembers.accessLevel} as access_level, ${groupMembers.expiresAt} as expires_at,
      ${groupMembers.createdAt} as created_at from ${groupMembers}
      where ${groupMembers.groupId} = ${groupId} and ${groupMembershipActive(today)} and ${picked(sql`${groupMembers.userId}`)}
      order by ${groupMembers.userId}${limit})`,
  );
  if (sources.projectId !== undefined) {
    branches.push(sql`(select ${projectMembers.userId} as user_id, ${projectMembers.accessLevel} as access_level, ${projectMembers.expiresAt} as expires_at,
      ${projectMembers.createdAt} as created_at from ${projectMembers}
      where ${projectMembers.projectId} = ${sources.projectId} and ${membershipActive(today)} and ${picked(sql`${projectMembers.userId}`)}
      order by ${projectMembers.userId}${limit})`);
  }
  return sql`select distinct on (user_id) user_id, access_level, expires_at, created_at from (${sql.join(branches, sql` union all `)}) sources
    order by user_id, access_level desc`;
}

async function allMembersPage(
  ctx: Ctx,
  sources: { projectId?: number; groupIds: number[] },
  page: PageRequest,
  filters: MemberFilters,
): Promise<ListPage<GroupMemberView>> {
  const reached = sql`(${allMembersQuery(ctx, sources, page.offset + page.perPage + 1, filters)}) as members`;
  const rows = ctx.db
    .select({
      user: users,
      member: {
        accessLevel: sql<number>`members.access_level`.mapWith(Number),
        expiresAt: sql<string | null>`members.expires_at::text`,
        createdAt: sql<Date>`members.created_at`.mapWith((value: string | Date) => new Date(value)),
      },
    })
    .from(reached)
    .innerJoin(users, sql`${users.id} = members.user_id`)
    .orderBy(sql`members.user_id`)
    .$dynamic();
  const matching = ctx.db.select({ userId: sql`members.user_id` }).from(sql`(${allMembersQuery(ctx, sources, null, filters)}) as members`).$dynamic();
  return listPage(ctx.db, page, rows, matching);
}

/** `GET /projects/:id/members/all`: the project's members and those of the groups above it, each with their highest role. */
export async function listAllProjectMembers(ctx: Ctx, reference: string, page: PageRequest, filters: MemberFilters = {}): Promise<ListPage<GroupMemberView>> {
  const view = await getVisibleProject(ctx, reference);
  const groupIds = view.namespace.kind === "group" ? view.namespace.traversalIds : [];
  return allMembersPage(ctx, { projectId: view.project.id, groupIds }, page, filters);
}

/** `GET /groups/:id/members/all`: the group's members and those of the groups above it. */
export async function listAllGroupMembers(ctx: Ctx, reference: string, page: PageRequest, filters: MemberFilters = {}): Promise<ListPage<GroupMemberView>> {
  const { group } = await getVisibleGroup(ctx, reference);
  return allMembersPage(ctx, { groupIds: group.traversalIds }, page, filters);
}

/** `GET …/members/all/:user_id`: one user's highest role there, direct or inherited. */
export async function getAllMember(ctx: Ctx, source: { project?: string; group?: string }, userId: number): Promise<GroupMemberView> {
  const filters = { userIds: [userId] };
  const onePage = { page: 1, perPage: 1, offset: 0 };
  const list = source.project !== undefined ? await listAllProjectMembers(ctx, source.project, onePage, filters) : await listAllGroupMembers(ctx, source.group!, onePage, filters);
  const [member] = list.items;
  if (!member) throw new NotFoundError("Member");
  return member;
}

/** What the group members page shows: the group, its direct members and, for a subgroup, the roles held in the groups above. */
export interface GroupMembersPage {
  view: GroupView;
  direct: ListPage<GroupMemberView>;
  /** Each member of the groups above with their highest role there; empty for a top-level group. */
  inherited: ListPage<GroupMemberView>;
}

/** The members page of the group at `fullPath` (the first hundred of each list), or null when the caller may not see it. */
export async function groupMembersPage(ctx: Ctx, fullPath: string): Promise<GroupMembersPage | null> {
  const view = await findVisibleGroup(ctx, fullPath);
  if (!view) return null;
  const page = { page: 1, perPage: 100, offset: 0 };
  const ancestors = view.group.traversalIds.slice(0, -1);
  const [direct, inherited] = await Promise.all([
    membersOfGroup(ctx, view.group.id, page, {}),
    ancestors.length === 0 ? { items: [], total: 0, hasNext: false } : allMembersPage(ctx, { groupIds: ancestors }, page, {}),
  ]);
  return { view, direct, inherited };
}
