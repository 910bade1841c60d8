import "server-only";
import { and, eq, isNull, ne } from "drizzle-orm";
import type { PageRequest } from "@/lib/api/pagination";
import { raisedSessionVersion } from "@/lib/auth/sessions";
import type { Ctx } from "@/lib/context";
import type { ListPage } from "@/lib/db";
import { hashPassword } from "@/lib/auth/password";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { namespaces, users, type UserRow } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, RefusedError, ValidationError } from "@/lib/errors";
import { redirectRenamedNamespace } from "@/lib/projects/redirect-routes";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { mailConfirmationInstructions, startConfirmation } from "./confirmation";
import { emailProblem, passwordProblem, profileFieldProblems, usernameProblem, type ProfileFields } from "./username-rules";
import { getUser, getUserByUsername, listUsers, requireAdmin } from "./users";
import { maxNameLength, requiredTextProblem } from "@/lib/text-rules";

/** The admin area's user list (`/admin/users`): every account, searched by name, username or email. */
export async function listUsersAsAdmin(ctx: Ctx, filter: { search?: string }, page: PageRequest): Promise<ListPage<UserRow>> {
  requireAdmin(ctx);
  return listUsers(ctx, { search: filter.search }, page);
}

/** The admin area's page of one account (`/admin/users/:username`). */
export async function getUserAsAdmin(ctx: Ctx, username: string): Promise<UserRow> {
  requireAdmin(ctx);
  return getUserByUsername(ctx, username);
}

/** GitLab's admin "Confirm user": marks the address confirmed, as if the person had opened the link. */
export async function confirmUserAsAdmin(ctx: Ctx, userId: number): Promise<UserRow> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  const [confirmed] = await ctx.db
    .update(users)
    .set({ confirmedAt: ctx.now })
    .where(and(eq(users.id, user.id), isNull(users.confirmedAt)))
    .returning();
  forgetTokenChecks(ctx.db, `user:${user.id}`);
  return confirmed ?? user;
}

/**
 * `POST /users/:id/block` and the admin page's Block: the account can no longer sign in or use its tokens, and every
 * browser session it has ends. Answers whether it was blocked now (false: it already was, which GitLab also accepts).
 * GitLab refuses to block the admin who asks (through the API) and its internal users, with these words.
 */
export async function blockUser(ctx: Ctx, userId: number): Promise<boolean> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  if (ctx.actor.kind === "user" && ctx.actor.user.id === user.id) throw new ForbiddenError("The API initiating user cannot be blocked by the API");
  if (user.userType !== "human") throw new RefusedError("An internal user cannot be blocked");
  const blocked = await ctx.db
    .update(users)
    .set({ state: "blocked", ...raisedSessionVersion })
    .where(and(eq(users.id, user.id), ne(users.state, "blocked")))
    .returning({ id: users.id });
  forgetTokenChecks(ctx.db, `user:${user.id}`);
  return blocked.length === 1;
}

/** `POST /users/:id/unblock` and the admin page's Unblock; answers false for an account that was not blocked. */
export async function unblockUser(ctx: Ctx, userId: number): Promise<boolean> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  const unblocked = await ctx.db
    .update(users)
    .set({ state: "active" })
    .where(and(eq(users.id, user.id), eq(users.state, "blocked")))
    .returning({ id: users.id });
  forgetTokenChecks(ctx.db, `user:${user.id}`);
  return unblocked.length === 1;
}

/** What `PUT /users/:id` changes (GitLab's parameters this service keeps); absent fields stay as they are. */
export interface UserChanges extends ProfileFields {
  name?: string;
  username?: string;
  email?: string;
  /** A new address is confirmed at once with this, else it waits for its owner to open the link mailed to it. */
  skipReconfirmation?: boolean;
  password?: string;
  admin?: boolean;
  external?: boolean;
}

/** The entries of `values` that are set: an UPDATE changes only what was asked for. */
function definedValues<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function validateUserChanges(changes: UserChanges): void {
  const errors: Record<string, string[]> = {};
  const usernameIssue = changes.username === undefined ? undefined : usernameProblem(changes.username);
  if (usernameIssue) errors.username = [usernameIssue];
  const emailIssue = changes.email === undefined ? undefined : emailProblem(changes.email);
  if (emailIssue) errors.email = [emailIssue];
  const nameIssue = changes.name === undefined ? null : requiredTextProblem(changes.name, maxNameLength);
  if (nameIssue) errors.name = [nameIssue];
  const passwordIssue = changes.password === undefined ? undefined : passwordProblem(changes.password);
  if (passwordIssue) errors.password = [passwordIssue];
  Object.assign(errors, profileFieldProblems(changes));
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * `PUT /users/:id` (admin). The user's namespace follows a new username and name, as on GitLab: their projects' URLs
 * change with it, and the old ones lead to the new (redirect routes). A new password ends the user's browser
 * sessions, as a password change does; a new email address is confirmed at once with `skip_reconfirmation`, otherwise
 * the account waits for its owner to open the link mailed to the new address (this service keeps one address per
 * account, so the old one is not kept meanwhile). Either voids a pending password reset link.
 */
export async function updateUserAsAdmin(ctx: Ctx, userId: number, changes: UserChanges): Promise<UserRow> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  validateUserChanges(changes);
  const newEmail = changes.email !== undefined && changes.email.toLowerCase() !== user.email ? changes.email.toLowerCase() : undefined;
  const confirmation = newEmail === undefined ? null : startConfirmation(ctx.now, { skip: changes.skipReconfirmation ?? false });
  const passwordHash = changes.password === undefined ? undefined : await hashPassword(changes.password);
  const values = definedValues({
    name: changes.name?.trim(),
    username: changes.username,
    email: newEmail,
    ...(confirmation?.columns ?? {}),
    ...(passwordHash === undefined ? {} : { passwordHash, ...raisedSessionVersion }),
    // A reset link mailed before goes with the address or password it was for (Devise clears it on either change).
    ...(newEmail === undefined && passwordHash === undefined ? {} : { resetPasswordTokenDigest: null, resetPasswordSentAt: null }),
    isAdmin: changes.admin,
    external: changes.external,
    bio: changes.bio,
    location: changes.location,
    organization: changes.organization,
    jobTitle: changes.jobTitle,
    websiteUrl: changes.websiteUrl,
  });
  if (Object.keys(values).length === 0) return user;
  let updated: UserRow;
  try {
    updated = await ctx.db.transaction(async (tx) => {
      const [row] = await tx.update(users).set(values).where(eq(users.id, user.id)).returning();
      if (!row) throw new NotFoundError("User");
      if (changes.username !== undefined || changes.name !== undefined) {
        const [namespace] = await tx
          .update(namespaces)
          .set({ path: row.username, name: row.name })
          .where(eq(namespaces.ownerId, row.id))
          .returning({ id: namespaces.id });
        if (namespace) await redirectRenamedNamespace(tx, namespace.id, user.username, row.username);
      }
      return row;
    });
  } catch (error) {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === "users_email_lower_key") throw new ConflictError("Email has already been taken");
    if (constraint === "users_username_lower_key" || constraint === "namespaces_path_lower_key") throw new ConflictError("Username has already been taken");
    throw error;
  }
  forgetTokenChecks(ctx.db, `user:${user.id}`);
  if (confirmation?.token) await mailConfirmationInstructions(updated, confirmation.token);
  return updated;
}
