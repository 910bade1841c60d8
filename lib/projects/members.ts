import "server-only";
import { and, asc, count, eq } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { pageWithTotal } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { accessLevels, projectMembers, users, type ProjectMemberRow, type UserRow } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, UnauthorizedError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import type { PageRequest } from "@/lib/api/pagination";
import { findUserById, findUserByUsername } from "@/lib/users/users";
import { isAccessLevel } from "./access";
import { getProjectWithAccess, getVisibleProject, type ProjectView } from "./projects";

export interface MemberView {
  user: UserRow;
  member: ProjectMemberRow;
}

export interface NewMember {
  userId: number;
  accessLevel: number;
  expiresAt?: string | null;
}

function checkGrantableLevel(view: ProjectView, level: number): void {
  if (!isAccessLevel(level)) throw new ParameterError("access_level", "does not have a valid value");
  // Only Owners hand out the Owner role; Maintainers manage everything below it.
  if (level === accessLevels.owner && (view.accessLevel ?? 0) < accessLevels.owner) throw new ForbiddenError();
}

/** `GET /projects/:id/members`: anyone who can see the project can see who works on it. */
export async function listMembers(
  ctx: Ctx,
  projectReference: string,
  page: PageRequest,
): Promise<{ view: ProjectView; items: MemberView[]; total: number }> {
  const view = await getVisibleProject(ctx, projectReference);
  const where = eq(projectMembers.projectId, view.project.id);
  const { items, total } = await pageWithTotal(
    page,
    ctx.db
      .select({ user: users, member: projectMembers })
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .where(where)
      .orderBy(asc(projectMembers.createdAt), asc(projectMembers.userId))
      .$dynamic(),
    ctx.db.select({ total: count() }).from(projectMembers).where(where),
  );
  return { view, items, total };
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
  const view = await getProjectWithAccess(ctx, projectReference, accessLevels.maintainer);
  checkGrantableLevel(view, input.accessLevel);
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
      return inserted;
    });
    return { user, member };
  } catch (error) {
    if (violatedUniqueConstraint(error) !== undefined) throw new ConflictError("Member already exists");
    throw error;
  }
}

/** `PUT /projects/:id/members/:user_id` (Maintainer+): changes a member's role. */
export async function updateMember(ctx: Ctx, projectReference: string, userId: number, accessLevel: number): Promise<MemberView> {
  const view = await getProjectWithAccess(ctx, projectReference, accessLevels.maintainer);
  checkGrantableLevel(view, accessLevel);
  const existing = await getMember(ctx, projectReference, userId);
  if (existing.member.accessLevel === accessLevels.owner) {
    // Only Owners change an Owner's role, as only they grant it.
    if ((view.accessLevel ?? 0) < accessLevels.owner) throw new ForbiddenError();
    await checkNotLastOwner(ctx, view);
  }
  const [member] = await ctx.db
    .update(projectMembers)
    .set({ accessLevel })
    .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.userId, userId)))
    .returning();
  if (!member) throw new NotFoundError("Member");
  return { user: existing.user, member };
}

/**
 * `DELETE /projects/:id/members/:user_id`: Maintainers remove others; anyone may leave. Records `left`, authored by
 * the member who left. The last Owner cannot leave, so a project never ends up without one.
 */
export async function removeMember(ctx: Ctx, projectReference: string, userId: number): Promise<void> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const leaving = actor.id === userId;
  const view = leaving
    ? await getVisibleProject(ctx, projectReference)
    : await getProjectWithAccess(ctx, projectReference, accessLevels.maintainer);
  const { member } = await getMember(ctx, projectReference, userId);
  if (member.accessLevel === accessLevels.owner) {
    if (!leaving && (view.accessLevel ?? 0) < accessLevels.owner) throw new ForbiddenError();
    await checkNotLastOwner(ctx, view);
  }
  await ctx.db.transaction(async (tx) => {
    const removed = await tx
      .delete(projectMembers)
      .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.userId, userId)))
      .returning({ userId: projectMembers.userId });
    if (removed.length === 0) throw new NotFoundError("Member");
    await recordEvent(tx, { projectId: view.project.id, authorId: userId, action: "left", createdAt: ctx.now });
  });
}

async function checkNotLastOwner(ctx: Ctx, view: ProjectView): Promise<void> {
  const [owners] = await ctx.db
    .select({ total: count() })
    .from(projectMembers)
    .where(and(eq(projectMembers.projectId, view.project.id), eq(projectMembers.accessLevel, accessLevels.owner)));
  if ((owners?.total ?? 0) <= 1) {
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
  await getProjectWithAccess(ctx, projectReference, accessLevels.maintainer);
  const user = await findUserByUsername(ctx.db, input.username.trim());
  if (!user) throw new NotFoundError("User");
  return addMember(ctx, projectReference, { userId: user.id, accessLevel: input.accessLevel });
}
