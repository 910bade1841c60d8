import "server-only";
import { and, eq, getTableColumns, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { decodeCursor, encodeCursor, type PageRequest } from "@/lib/api/pagination";
import { numericReference } from "@/lib/api/param-types";
import { hashPassword } from "@/lib/auth/password";
import type { Ctx } from "@/lib/context";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { containsPattern } from "@/lib/db/like";
import { namespaces, users, type UserRow } from "@/lib/db/schema";
import { keyedListPage, keyedRowsFrom, type Executor, type KeyedList, type ListPage, type OrderKey } from "@/lib/db";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { claimNamespacePath, movedNamespacePath } from "@/lib/projects/redirect-routes";
import { mailConfirmationInstructions, startConfirmation, type StartedConfirmation } from "./confirmation";
import { emailProblem, passwordProblem, profileFieldProblems, usernameProblem, type ProfileFields } from "./username-rules";
import { maxNameLength, requiredTextProblem } from "@/lib/text-rules";

export type { UserRow } from "@/lib/db/schema";

export interface NewUser extends ProfileFields {
  username: string;
  email: string;
  name: string;
  password: string;
  isAdmin?: boolean;
  /** An external user (GitLab's): sees only public projects and those they are made members of. */
  external?: boolean;
}

/** Where a new account's email confirmation stands; unset: not confirmed, and no link sent. */
type ConfirmationColumns = Partial<StartedConfirmation["columns"]>;

function validateNewUser(input: NewUser): void {
  const errors: Record<string, string[]> = {};
  const usernameIssue = usernameProblem(input.username);
  if (usernameIssue) errors.username = [usernameIssue];
  const emailIssue = emailProblem(input.email);
  if (emailIssue) errors.email = [emailIssue];
  const nameIssue = requiredTextProblem(input.name, maxNameLength);
  if (nameIssue) errors.name = [nameIssue];
  const passwordIssue = passwordProblem(input.password);
  if (passwordIssue) errors.password = [passwordIssue];
  Object.assign(errors, profileFieldProblems(input));
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * Inserts a user and their personal namespace. The unique indexes decide duplicates, so two concurrent sign-ups
 * with the same name cannot both succeed.
 */
export async function insertUser(db: Executor, input: NewUser, confirmation: ConfirmationColumns = {}): Promise<UserRow> {
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
          external: input.external ?? false,
          bio: input.bio,
          location: input.location,
          organization: input.organization,
          jobTitle: input.jobTitle,
          websiteUrl: input.websiteUrl,
          ...confirmation,
        })
        .returning();
      if (!user) throw new Error("insert into users returned no row");
      await tx.insert(namespaces).values({ path: user.username, name: user.name, ownerId: user.id });
      await claimNamespacePath(tx, user.username);
      return user;
    });
  } catch (error) {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === "users_email_lower_key") throw new ConflictError("Email has already been taken", "email");
    if (constraint !== undefined) throw new ConflictError("Username has already been taken", "username");
    throw error;
  }
}

/**
 * Creates an account whose email confirmation starts as EMAIL_CONFIRMATION says, and mails the confirmation link
 * once the account is stored (a mail server that fails does not undo it: the person can ask for another link).
 */
export async function createAccount(db: Executor, input: NewUser, now: Date, { skipConfirmation }: { skipConfirmation: boolean }): Promise<UserRow> {
  const confirmation = startConfirmation(now, { skip: skipConfirmation });
  const user = await insertUser(db, input, confirmation.columns);
  if (confirmation.token) await mailConfirmationInstructions(user, confirmation.token);
  return user;
}

/** `POST /users`: an admin creates an account, confirmed at once with `skip_confirmation`, as on GitLab. */
export async function createUserAsAdmin(ctx: Ctx, input: NewUser & { skipConfirmation?: boolean }): Promise<UserRow> {
  requireAdmin(ctx);
  const { skipConfirmation = false, ...account } = input;
  return createAccount(ctx.db, account, ctx.now, { skipConfirmation });
}

/** An administrator, or the service itself acting for its operator (`npm run admin`), which has an administrator's rights. */
export function isAdmin(ctx: Ctx): boolean {
  return (ctx.actor.kind === "user" && ctx.actor.user.isAdmin) || ctx.actor.kind === "system";
}

export function requireAdmin(ctx: Ctx): void {
  if (!isAdmin(ctx)) throw new ForbiddenError();
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
  const id = numericReference(reference);
  const user = id === null ? await findUserByUsername(ctx.db, reference) : await findUserById(ctx.db, id);
  if (!user) throw new NotFoundError("User");
  return user;
}

/** The user a request acts for (`GET /user`). */
export function currentUser(ctx: Ctx): UserRow {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  return ctx.actor.user;
}

export const userOrderFields = ["id", "name", "username", "created_at", "updated_at"] as const;

/** `GET /users`' filters, with GitLab's meanings (UsersFinder). */
export interface UserListFilters {
  /** One user, by username in any case. */
  username?: string;
  search?: string;
  /** Active people: not blocked, and not the service's own bots (GitLab's `active` scope). */
  active?: boolean;
  blocked?: boolean;
  /** Admins only. */
  external?: boolean;
  /** Created at or after / at or before these times; admins only (others' are ignored, as GitLab drops them). */
  createdAfter?: Date;
  createdBefore?: Date;
  /** Admins only, like the dates; by default the newest first. */
  orderBy?: (typeof userOrderFields)[number];
  sort?: "asc" | "desc";
}

/** The orders of `GET /users`, with how a keyset cursor's value of each becomes a value in SQL. */
const userOrders = {
  id: { column: users.id, parse: (text: string) => sql`${parseCursorId(text)}` },
  name: { column: users.name, parse: (text: string) => sql`${text}` },
  username: { column: users.username, parse: (text: string) => sql`${text}` },
  created_at: { column: users.createdAt, parse: parseCursorTime },
  updated_at: { column: users.updatedAt, parse: parseCursorTime },
} as const;

type UserOrderField = keyof typeof userOrders;

function parseCursorId(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 2_147_483_647) throw new ParameterError("cursor", "is invalid");
  return Number(text);
}

function parseCursorTime(text: string): SQL {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new ParameterError("cursor", "is invalid");
  return sql`${time.toISOString()}::timestamptz`;
}

function cursorValue(user: UserRow, field: UserOrderField): string {
  const value = { id: user.id, name: user.name, username: user.username, created_at: user.createdAt, updated_at: user.updatedAt }[field];
  return value instanceof Date ? value.toISOString() : String(value);
}

/** The list's order: an admin's choice, anyone else's the newest accounts first (GitLab drops their `order_by`). */
function userOrder(ctx: Ctx, filter: UserListFilters): { field: UserOrderField; descending: boolean } {
  const admin = isAdmin(ctx);
  return { field: (admin && filter.orderBy) || "id", descending: !(admin && filter.sort === "asc") };
}

/**
 * `GET /users`' filters as SQL, as GitLab's: `username` finds one user (case-insensitively); `search` as `userSearch`.
 * Anonymous callers may only look up a username; only admins may ask for external users (403 otherwise), and only
 * their date bounds count.
 */
function userConditions(ctx: Ctx, filter: UserListFilters): SQL | undefined {
  const admin = isAdmin(ctx);
  if (filter.external && !admin) throw ctx.actor.kind === "anonymous" ? new UnauthorizedError() : new ForbiddenError();
  if (filter.username === undefined && ctx.actor.kind === "anonymous") throw new ForbiddenError();
  return and(
    filter.username === undefined ? undefined : sql`lower(${users.username}) = lower(${filter.username})`,
    filter.search ? userSearch(ctx, filter.search) : undefined,
    filter.active ? and(eq(users.state, "active"), eq(users.userType, "human")) : undefined,
    filter.blocked ? eq(users.state, "blocked") : undefined,
    filter.external ? eq(users.external, true) : undefined,
    admin && filter.createdAfter ? gte(users.createdAt, filter.createdAfter) : undefined,
    admin && filter.createdBefore ? lte(users.createdAt, filter.createdBefore) : undefined,
  );
}

/** The users matching `where` in `order` (by its column, then id), read through the index of that order. */
function userList(ctx: Ctx, order: { field: UserOrderField; descending: boolean }, where: SQL | undefined): KeyedList<ReturnType<typeof userRows>> {
  const keys: OrderKey[] = [
    ...(order.field === "id" ? [] : [{ value: userOrders[order.field].column, descending: order.descending }]),
    { value: users.id, descending: order.descending },
  ];
  return {
    order: keys,
    branches: (columns) => [ctx.db.select(columns).from(users).where(where).$dynamic()],
    rows: (pageKeys, key) => userRows(ctx, pageKeys, key(keys.length - 1)),
  };
}

function userRows(ctx: Ctx, pageKeys: SQL, userId: SQL) {
  return ctx.db.select(getTableColumns(users)).from(pageKeys).innerJoin(users, sql`${users.id} = ${userId}`).$dynamic();
}

/** `GET /users` by offset: the users `filter` keeps, newest first unless an admin orders them otherwise. */
export async function listUsers(ctx: Ctx, filter: UserListFilters, page: PageRequest): Promise<ListPage<UserRow>> {
  return keyedListPage(ctx.db, page, userList(ctx, userOrder(ctx, filter), userConditions(ctx, filter)));
}

/**
 * `GET /users?pagination=keyset`, GitLab's cursor-based keyset: the users after `cursor` (none: from the first) in the
 * list's order, and the cursor of the page after them when there is one. Never counted.
 */
export async function listUsersByKeyset(
  ctx: Ctx,
  filter: UserListFilters,
  perPage: number,
  cursor: string | undefined,
): Promise<{ items: UserRow[]; nextCursor: string | null }> {
  const order = userOrder(ctx, filter);
  const { column, parse } = userOrders[order.field];
  let after: SQL | undefined;
  if (cursor !== undefined) {
    const values = decodeCursor(cursor);
    const [value, id] = [values[order.field], values.id];
    if (value === undefined || id === undefined) throw new ParameterError("cursor", "is invalid");
    const position = order.field === "id" ? sql`${users.id}` : sql`(${column}, ${users.id})`;
    const bound = order.field === "id" ? sql`${parseCursorId(id)}` : sql`(${parse(value)}, ${parseCursorId(id)})`;
    after = order.descending ? sql`${position} < ${bound}` : sql`${position} > ${bound}`;
  }
  const rows = await keyedRowsFrom(userList(ctx, order, and(userConditions(ctx, filter), after)), perPage + 1);
  const items = rows.slice(0, perPage);
  const last = items.at(-1);
  const nextCursor = rows.length > perPage && last ? encodeCursor({ [order.field]: cursorValue(last, order.field), id: String(last.id) }) : null;
  return { items, nextCursor };
}

/**
 * GitLab's user search: the name and username contain the query; an email address matches only whole (in any case)
 * unless an admin searches, so nobody can spell out someone's private address by probing prefixes.
 */
export function userSearch(ctx: Ctx, query: string): SQL {
  const pattern = containsPattern(query);
  const email = isAdmin(ctx) ? ilike(users.email, pattern) : sql`lower(${users.email}) = lower(${query})`;
  return or(ilike(users.username, pattern), ilike(users.name, pattern), email)!;
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

/**
 * The username now of the user who had `oldUsername` before a rename (their namespace's redirect route), so their page
 * at the old address leads to the new one; null when no rename left that name to anyone.
 */
export async function renamedUsername(ctx: Ctx, oldUsername: string): Promise<string | null> {
  if (oldUsername.includes("\u0000")) return null;
  return movedNamespacePath(ctx.db, oldUsername);
}

/**
 * Users whose username or name contains `query`, for a signed-in person picking someone (the members page): the same
 * search and visibility as `GET /users?search=`, active people only, and no more than a handful.
 */
export async function suggestUsers(ctx: Ctx, query: string): Promise<Pick<UserRow, "id" | "username" | "name">[]> {
  if (ctx.actor.kind === "anonymous") throw new UnauthorizedError();
  const { items } = await listUsers(ctx, { search: query, active: true }, { page: 1, perPage: 8, offset: 0 });
  return items.map(({ id, username, name }) => ({ id, username, name }));
}
