import "server-only";
import { asc, count, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import type { PageRequest } from "@/lib/api/pagination";
import { hashPassword, minimumPasswordLength } from "@/lib/auth/password";
import type { Ctx } from "@/lib/context";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { containsPattern } from "@/lib/db/like";
import { namespaces, users, type UserRow } from "@/lib/db/schema";
import { pageWithTotal, type Executor } from "@/lib/db";
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { emailProblem, usernameProblem } from "./username-rules";

export interface NewUser {
  username: string;
  email: string;
  name: string;
  password: string;
  isAdmin?: boolean;
}

function validateNewUser(input: NewUser): void {
  const errors: Record<string, string[]> = {};
  const usernameIssue = usernameProblem(input.username);
  if (usernameIssue) errors.username = [usernameIssue];
  const emailIssue = emailProblem(input.email);
  if (emailIssue) errors.email = [emailIssue];
  if (input.name.trim() === "" || input.name.length > 255) errors.name = ["must be 1 to 255 characters"];
  if (input.password.length < minimumPasswordLength) {
    errors.password = [`is too short (minimum is ${minimumPasswordLength} characters)`];
  } else if (input.password.length > 128) {
    errors.password = ["is too long (maximum is 128 characters)"];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * Inserts a user and their personal namespace. The unique indexes decide duplicates, so two concurrent sign-ups
 * with the same name cannot both succeed.
 */
export async function insertUser(db: Executor, input: NewUser): Promise<UserRow> {
  validateNewUser(input);
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({
          username: input.username,
          email: input.email.toLowerCase(),
          name: input.name.trim(),
          passwordHash,
          isAdmin: input.isAdmin ?? false,
        })
        .returning();
      if (!user) throw new Error("insert into users returned no row");
      await tx.insert(namespaces).values({ path: user.username, name: user.name, ownerId: user.id });
      return user;
    });
  } catch (error) {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === "users_email_lower_key") throw new ConflictError("Email has already been taken");
    if (constraint !== undefined) throw new ConflictError("Username has already been taken");
    throw error;
  }
}

/** `POST /users`: an admin creates an account. */
export async function createUserAsAdmin(ctx: Ctx, input: NewUser): Promise<UserRow> {
  requireAdmin(ctx);
  return insertUser(ctx.db, input);
}

export function requireAdmin(ctx: Ctx): void {
  if (ctx.actor.kind !== "user" || !ctx.actor.user.isAdmin) throw new ForbiddenError();
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, id));
  return user;
}

export async function findUserByUsername(db: Executor, username: string): Promise<UserRow | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`);
  return user;
}

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = lower(${login}) or lower(${users.email}) = lower(${login})`)
    .limit(1);
  return user;
}

export async function getUser(ctx: Ctx, id: number): Promise<UserRow> {
  const user = await findUserById(ctx.db, id);
  if (!user) throw new NotFoundError("User");
  return user;
}

/** A user reference as the API accepts it in paths: a numeric id or a username. */
export async function getUserByIdOrUsername(ctx: Ctx, reference: string): Promise<UserRow> {
  const user = /^\d+$/.test(reference)
    ? await findUserById(ctx.db, Number(reference))
    : await findUserByUsername(ctx.db, reference);
  if (!user) throw new NotFoundError("User");
  return user;
}

/** The user a request acts for (`GET /user`). */
export function currentUser(ctx: Ctx): UserRow {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  return ctx.actor.user;
}

/**
 * `GET /users`: `username` finds one user (case-insensitively); `search` matches name, username or email.
 * Anonymous callers may only look up a username, as on GitLab.
 */
export async function listUsers(
  ctx: Ctx,
  filter: { username?: string; search?: string },
  page: PageRequest,
): Promise<{ items: UserRow[]; total: number }> {
  const conditions: SQL[] = [];
  if (filter.username !== undefined) conditions.push(sql`lower(${users.username}) = lower(${filter.username})`);
  else if (ctx.actor.kind === "anonymous") throw new ForbiddenError();
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    conditions.push(or(ilike(users.username, pattern), ilike(users.name, pattern), ilike(users.email, pattern))!);
  }
  const where = conditions.length > 0 ? sql.join(conditions, sql` and `) : undefined;
  return pageWithTotal(
    page,
    ctx.db.select().from(users).where(where).orderBy(asc(users.id)).$dynamic(),
    ctx.db.select({ total: count() }).from(users).where(where),
  );
}

/** Whether `viewer` may see the private fields (email, admin flag, 2FA) of `user`. */
export function canSeePrivateFields(ctx: Ctx, user: UserRow): boolean {
  return ctx.actor.kind === "user" && (ctx.actor.user.isAdmin || ctx.actor.user.id === user.id);
}

/** A user page (`/:username`): the user with that username, or 404. Usernames may be all digits, so no id lookup. */
export async function getUserByUsername(ctx: Ctx, username: string): Promise<UserRow> {
  const user = await findUserByUsername(ctx.db, username);
  if (!user) throw new NotFoundError("User");
  return user;
}
