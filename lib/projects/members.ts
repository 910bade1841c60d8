import "server-only";
import { and, count, eq, inArray, ne, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, type ListPage, type OrderKey } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { accessLevels, projectMembers, users, type ProjectMemberRow, type UserRow } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import { memberHooks } from "@/lib/webhooks/events";
import type { PageRequest } from "@/lib/api/pagination";
import { findUserById, findUserByUsername, userSearch } from "@/lib/users/users";
import { isAccessLevel, isMembershipActive, membershipActive, utcDay } from "./access";
import { can, canGrant } from "./policy";
import { getProjectWithAbility, getVisibleProject, type ProjectView } from "./projects";

export interface MemberView {
  user: UserRow;
  member: ProjectMemberRow;
}

export interface NewMember {
  userId: number;
  accessLevel: number;
  /** `YYYY-MM-DD` (UTC): the membership ends at the start of that day. */
  expiresAt?: string | null;
}

export interface MemberChanges {
  accessLevel: number;
  /** A new end date; null removes it; undefined keeps the current one. */
  expiresAt?: string | null;
}

function checkGrantableLevel(view: ProjectView, level: number): void {
  if (!isAccessLevel(level)) throw new ParameterError("access_level", "does not have a valid value");
  if (!canGrant(view, level)) throw new ForbiddenError();
}

/** GitLab's rule: no end date before today (today itself ends the membership at once). */
function checkExpiryDate(ctx: Ctx, expiresAt: string | null | undefined): void {
  if (expiresAt && expiresAt < utcDay(ctx.now)) throw new ValidationError({ expires_at: ["cannot be a date in the past"] });
}

/** `GET /projects/:id/members` filters: GitLab's user search (`query`) and a list of user ids. */
export interface MemberFilters {
  query?: string;
  userIds?: number[];
}

/**
 * `GET /projects/:id/members`, and `…/members/all` (which adds members inherited from groups on GitLab; projects here
 * have direct members only): anyone who can see the project can see who works on it. Expired memberships are listed
 * (with their `expires_at`) until the scheduled job removes them, as on GitLab; they grant nothing meanwhile.
 */
export async function listMembers(
  ctx: Ctx,
  projectReference: string,
  page: PageRequest,
  filters: MemberFilters = {},
): Promise<ListPage<MemberView> & { view: ProjectView }> {
  const view = await getVisibleProject(ctx, projectReference);
  const where = and(
    eq(projectMembers.projectId, view.project.id),
    filters.query ? userSearch(ctx, filters.query) : undefined,
    filters.userIds === undefined ? undefined : inArray(projectMembers.userId, filters.userIds),
  );
  // Oldest membership first, read from `project_members_project_created_idx`; only the page's members join their users.
  const order: OrderKey[] = [
    { value: projectMembers.createdAt, descending: false },
    { value: projectMembers.userId, descending: false },
  ];
  const list = await keyedListPage(ctx.db, page, {
    order,
    branches: (keys) => {
      const members = ctx.db.select(keys).from(projectMembers).$dynamic();
      return [(filters.query ? members.innerJoin(users, eq(users.id, projectMembers.userId)) : members).where(where)];
    },
    rows: (pageKeys, key) =>
      ctx.db
        .select({ user: users, member: projectMembers })
        .from(pageKeys)
        .innerJoin(projectMembers, and(eq(projectMembers.projectId, view.project.id), sql`${projectMembers.userId} = ${key(1)}`))
        .innerJoin(users, eq(users.id, projectMembers.userId))
        .$dynamic(),
  });
  return { ...list, view };
}

export async function getMember(ctx: Ctx, projectReference: string, userId: number): Promise<MemberView> {
  const view = await getVisibleProject(ctx, projectReference);
  const [row] = await ctx.db
    .select({ user: users, member: projectMembers })
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.userId, userId)));
  if (!row) throw new NotFoundError("Member");
  return row;
}

/** `POST /projects/:id/members` (Maintainer+): adds a member and records `joined`, authored by the new member. */
export async function addMember(ctx: Ctx, projectReference: string, input: NewMember): Promise<MemberView> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageMembers");
  checkGrantableLevel(view, input.accessLevel);
  checkExpiryDate(ctx, input.expiresAt);
  const user = await findUserById(ctx.db, input.userId);
  if (!user) throw new NotFoundError("User");
  try {
    const member = await ctx.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(projectMembers)
        .values({
          projectId: view.project.id,
          userId: user.id,
          accessLevel: input.accessLevel,
          expiresAt: input.expiresAt ?? null,
          createdById: actor.id,
          createdAt: ctx.now,
        })
        .returning();
      if (!inserted) throw new Error("insert into project_members returned no row");
      await recordEvent(tx, {
        projectId: view.project.id,
        authorId: user.id,
        action: "joined",
        createdAt: ctx.now,
      });
      await memberHooks(tx, { view, member: inserted, user, eventName: "user_add_to_project", now: ctx.now });
      return inserted;
    });
    return { user, member };
  } catch (error) {
    if (violatedUniqueConstraint(error) !== undefined) throw new ConflictError("Member already exists");
    throw error;
  }
}

/**
 * `PUT /projects/:id/members/:user_id` (Maintainer+): changes a member's role and, optionally, when the membership
 * ends (an expired one can be renewed this way until the scheduled job removes it).
 */
export async function updateMember(ctx: Ctx, projectReference: string, userId: number, changes: MemberChanges): Promise<MemberView> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageMembers");
  checkGrantableLevel(view, changes.accessLevel);
  checkExpiryDate(ctx, changes.expiresAt);
  const existing = await getMember(ctx, projectReference, userId);
  if (existing.member.accessLevel === accessLevels.owner) {
    // Only Owners change an Owner's membership, as only they grant it.
    if (!can(view, "manageOwners")) throw new ForbiddenError();
    const endsOwnership = changes.accessLevel !== accessLevels.owner || (changes.expiresAt ?? null) !== null;
    if (endsOwnership && isMembershipActive(existing.member, ctx.now)) await checkNotLastOwner(ctx, view, userId);
  }
  const member = await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(projectMembers)
      .set({ accessLevel: changes.accessLevel, ...(changes.expiresAt === undefined ? {} : { expiresAt: changes.expiresAt }) })
      .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.userId, userId)))
      .returning();
    if (!updated) throw new NotFoundError("Member");
    await memberHooks(tx, { view, member: updated, user: existing.user, eventName: "user_update_for_project", now: ctx.now });
    return updated;
  });
  return { user: existing.user, member };
}

/**
 * `DELETE /projects/:id/members/:user_id`: Maintainers remove others; anyone may leave. Records `left`, authored by
 * the member who left (`expired` when the membership had already ended, as GitLab does). The last Owner cannot leave,
 * so a project never ends up without one.
 */
export async function removeMember(ctx: Ctx, projectReference: string, userId: number): Promise<void> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const leaving = actor.id === userId;
  const view = leaving
    ? await getVisibleProject(ctx, projectReference)
    : await getProjectWithAbility(ctx, projectReference, "manageMembers");
  const { member, user: removedUser } = await getMember(ctx, projectReference, userId);
  const active = isMembershipActive(member, ctx.now);
  if (member.accessLevel === accessLevels.owner) {
    if (!leaving && !can(view, "manageOwners")) throw new ForbiddenError();
    if (active) await checkNotLastOwner(ctx, view, userId);
  }
  await ctx.db.transaction(async (tx) => {
    const removed = await tx
      .delete(projectMembers)
      .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.userId, userId)))
      .returning();
    if (removed.length === 0) throw new NotFoundError("Member");
    await memberHooks(tx, { view, member: removed[0]!, user: removedUser, eventName: "user_remove_from_project", now: ctx.now });
    await recordEvent(tx, { projectId: view.project.id, authorId: userId, action: active ? "left" : "expired", createdAt: ctx.now });
  });
}

/** Refuses a change that would leave the project without an Owner whose membership is still in force. */
async function checkNotLastOwner(ctx: Ctx, view: ProjectView, changedUserId: number): Promise<void> {
  const [others] = await ctx.db
    .select({ total: count() })
    .from(projectMembers)
    .where(
      and(
        eq(projectMembers.projectId, view.project.id),
        eq(projectMembers.accessLevel, accessLevels.owner),
        ne(projectMembers.userId, changedUserId),
        membershipActive(utcDay(ctx.now)),
      ),
    );
  if ((others?.total ?? 0) === 0) {
    throw new ForbiddenError("a project's last Owner cannot be removed or demoted");
  }
}

/** The members page adds people by username, as GitLab's invite form does; unknown usernames are "User not found". */
export async function addMemberByUsername(
  ctx: Ctx,
  projectReference: string,
  input: { username: string; accessLevel: number },
): Promise<MemberView> {
  // Check the caller's rights first, so the answer does not reveal which usernames exist to non-maintainers.
  await getProjectWithAbility(ctx, projectReference, "manageMembers");
  return addByUsername(ctx, input.username, "project", (userId) => addMember(ctx, projectReference, { userId, accessLevel: input.accessLevel }));
}

/**
 * What the members pages' forms share, once the caller's right to add members is checked: the user the username names
 * (an unknown one is a field error), added by `add`, a membership they already hold said on the username field.
 */
export async function addByUsername<T>(ctx: Ctx, username: string, source: "project" | "group", add: (userId: number) => Promise<T>): Promise<T> {
  const user = await findUserByUsername(ctx.db, username.trim());
  if (!user) throw new ValidationError({ username: ["does not belong to any user"] });
  try {
    return await add(user.id);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`@${user.username} is already a member of this ${source}`, "username");
    throw error;
  }
}
