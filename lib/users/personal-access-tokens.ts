import "server-only";
import { and, desc, eq, ilike, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDate, isoDateTime } from "@/lib/api/entities";
import type { PageRequest } from "@/lib/api/pagination";
import type { Ctx } from "@/lib/context";
import { generateSecret, sha256Hex } from "@/lib/crypto";
import { keyedListPage, preparedQuery, rowsById, type Database, type Executor, type ListPage } from "@/lib/db";
import { personalAccessTokens, users, type PersonalAccessTokenRow, type UserRow } from "@/lib/db/schema";
import { BadRequestError, MethodNotAllowedError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { containsPattern } from "@/lib/db/like";
import { isKnownScope, type Scope } from "@/lib/api/scopes";
import { forgetTokenChecks, tokenCheck, type PersonalAccessTokenCheck } from "@/lib/token-checks/checks";
import { getUser, requireAdmin } from "./users";
import { maxNameLength, requiredTextProblem } from "@/lib/text-rules";

export const personalAccessTokenPrefix = "glpat-";

export interface NewPersonalAccessToken {
  name: string;
  scopes: Scope[];
  /** YYYY-MM-DD; the token stops working at the start of that day (UTC). */
  expiresAt?: string | null;
}

export interface IssuedPersonalAccessToken {
  record: PersonalAccessTokenRow;
  /** The token itself. Only its digest is stored, so this is the one time anyone sees it. */
  token: string;
}

function validateNewToken(input: NewPersonalAccessToken, today: string): void {
  const errors: Record<string, string[]> = {};
  const nameIssue = requiredTextProblem(input.name, maxNameLength);
  if (nameIssue) errors.name = [nameIssue];
  if (input.scopes.length === 0 || !input.scopes.every(isKnownScope)) errors.scopes = ["must name at least one known scope"];
  if (input.expiresAt && input.expiresAt <= today) errors.expires_at = ["must be in the future"];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * Creates a token for `userId`. `token` lets the bootstrap install an operator-chosen value (INITIAL_ROOT_TOKEN);
 * everything else gets a fresh random one.
 */
export async function insertPersonalAccessToken(
  db: Executor,
  userId: number,
  input: NewPersonalAccessToken,
  now: Date,
  token: string = generateSecret(personalAccessTokenPrefix),
): Promise<IssuedPersonalAccessToken> {
  validateNewToken(input, now.toISOString().slice(0, 10));
  const [record] = await db
    .insert(personalAccessTokens)
    .values({
      userId,
      name: input.name.trim(),
      tokenDigest: sha256Hex(token),
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
    })
    .returning();
  if (!record) throw new Error("insert into personal_access_tokens returned no row");
  return { record, token };
}

/** `POST /users/:user_id/personal_access_tokens` (admin). */
export async function createPersonalAccessTokenAsAdmin(
  ctx: Ctx,
  userId: number,
  input: NewPersonalAccessToken,
): Promise<IssuedPersonalAccessToken> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  return insertPersonalAccessToken(ctx.db, user.id, input, ctx.now);
}

/**
 * A signed-in user creates a token for themselves (profile page). `sudo` is an administrator's scope: anyone else is
 * refused it with GitLab's model error.
 */
export async function createOwnPersonalAccessToken(ctx: Ctx, input: NewPersonalAccessToken): Promise<IssuedPersonalAccessToken> {
  const user = requireSessionUser(ctx);
  if (input.scopes.includes("sudo") && !user.isAdmin) throw new ValidationError({ scopes: ["can only contain available scopes"] });
  return insertPersonalAccessToken(ctx.db, user.id, input, ctx.now);
}

export async function listOwnPersonalAccessTokens(ctx: Ctx): Promise<PersonalAccessTokenRow[]> {
  const user = requireSessionUser(ctx);
  return ctx.db
    .select()
    .from(personalAccessTokens)
    .where(eq(personalAccessTokens.userId, user.id))
    .orderBy(desc(personalAccessTokens.id));
}

export async function revokeOwnPersonalAccessToken(ctx: Ctx, tokenId: number): Promise<void> {
  const user = requireSessionUser(ctx);
  const revoked = await ctx.db
    .update(personalAccessTokens)
    .set({ revoked: true })
    .where(and(eq(personalAccessTokens.id, tokenId), eq(personalAccessTokens.userId, user.id)))
    .returning({ id: personalAccessTokens.id });
  if (revoked.length === 0) throw new NotFoundError("Personal Access Token");
  forgetTokenChecks(ctx.db, `personal_access_token:${tokenId}`);
}

function requireSessionUser(ctx: Ctx): UserRow {
  if (ctx.actor.kind !== "user") throw new NotFoundError("User");
  return ctx.actor.user;
}

/** The token row and its owner for a presented token value: one indexed lookup by digest. */
const tokenWithUserByDigest = preparedQuery((db) =>
  db
    .select({ token: personalAccessTokens, user: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenDigest, sql.placeholder("digest")))
    .prepare("personal_access_token_by_digest"),
);

/** The token and its user; every API request with a token asks, so the query is prepared once. */
export async function findPersonalAccessTokenByValue(
  db: Database,
  token: string,
): Promise<{ token: PersonalAccessTokenRow; user: UserRow } | undefined> {
  const [row] = await tokenWithUserByDigest(db).execute({ digest: sha256Hex(token) });
  return row;
}

async function loadPersonalAccessTokenCheck(db: Database, digest: string): Promise<PersonalAccessTokenCheck | undefined> {
  const [row] = await tokenWithUserByDigest(db).execute({ digest });
  if (!row) return undefined;
  const { token, user } = row;
  const { id: tokenId, scopes, expiresAt, revoked, lastUsedAt } = token;
  return { kind: "personal", tokenId, scopes, expiresAt, revoked, lastUsedAt, user };
}

/** What checking a presented personal access token needs, usually from this process's cache of token checks. */
export function findPersonalAccessTokenCheck(db: Database, token: string): Promise<PersonalAccessTokenCheck | undefined> {
  return tokenCheck(db, sha256Hex(token), "personal", loadPersonalAccessTokenCheck);
}

export function isTokenExpired(token: Pick<PersonalAccessTokenRow, "expiresAt">, now: Date): boolean {
  return token.expiresAt !== null && token.expiresAt <= now.toISOString().slice(0, 10);
}

export const personalAccessTokenEntity = entity(
  "PersonalAccessToken",
  "A personal access token; the token itself only in the answers that create or rotate it",
  z.strictObject({
    id: z.number().int(),
    name: z.string(),
    revoked: z.boolean(),
    created_at: isoDateTime,
    scopes: z.array(z.string()),
    user_id: z.number().int(),
    active: z.boolean(),
    expires_at: isoDate.nullable(),
    token: z.string().optional(),
  }),
);

export function serializePersonalAccessToken(issued: IssuedPersonalAccessToken | PersonalAccessTokenRow, now: Date): z.infer<typeof personalAccessTokenEntity> {
  const record = "record" in issued ? issued.record : issued;
  const body = {
    id: record.id,
    name: record.name,
    revoked: record.revoked,
    created_at: record.createdAt.toISOString(),
    scopes: record.scopes,
    user_id: record.userId,
    active: !record.revoked && !isTokenExpired(record, now),
    expires_at: record.expiresAt,
  };
  return "token" in issued ? { ...body, token: issued.token } : body;
}

export interface PersonalAccessTokenFilters {
  /** Admins may list another user's tokens; anyone may name themselves. */
  userId?: number;
  revoked?: boolean;
  state?: "active" | "inactive";
  search?: string;
}

/**
 * `GET /personal_access_tokens`: a user's own tokens; admins see every token, or one user's with `user_id`.
 * A non-admin naming another user gets 401, as on GitLab.
 */
export async function listPersonalAccessTokens(
  ctx: Ctx,
  filters: PersonalAccessTokenFilters,
  page: PageRequest,
): Promise<ListPage<PersonalAccessTokenRow>> {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  const caller = ctx.actor.user;
  const conditions: SQL[] = [];
  if (filters.userId !== undefined) {
    if (!caller.isAdmin && filters.userId !== caller.id) throw new UnauthorizedError();
    conditions.push(eq(personalAccessTokens.userId, filters.userId));
  } else if (!caller.isAdmin) {
    conditions.push(eq(personalAccessTokens.userId, caller.id));
  }
  if (filters.revoked !== undefined) conditions.push(eq(personalAccessTokens.revoked, filters.revoked));
  const today = ctx.now.toISOString().slice(0, 10);
  const active = sql`(not ${personalAccessTokens.revoked} and (${personalAccessTokens.expiresAt} is null or ${personalAccessTokens.expiresAt} > ${today}))`;
  if (filters.state === "active") conditions.push(active);
  if (filters.state === "inactive") conditions.push(sql`not ${active}`);
  if (filters.search) conditions.push(ilike(personalAccessTokens.name, containsPattern(filters.search)));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  return keyedListPage(ctx.db, page, rowsById(ctx.db, personalAccessTokens, where));
}

/** A token its owner or an admin may see; anything else is indistinguishable from a missing token. */
export async function getManageablePersonalAccessToken(ctx: Ctx, tokenId: number): Promise<PersonalAccessTokenRow> {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  const caller = ctx.actor.user;
  const [token] = await ctx.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, tokenId));
  if (!token || (!caller.isAdmin && token.userId !== caller.id)) throw new NotFoundError("Personal Access Token");
  return token;
}

/** `DELETE /personal_access_tokens/:id`: the owner or an admin revokes a token; it stops working at once. */
export async function revokePersonalAccessToken(ctx: Ctx, tokenId: number): Promise<void> {
  const token = await getManageablePersonalAccessToken(ctx, tokenId);
  await markRevoked(ctx.db, token.id);
}

async function markRevoked(db: Database, tokenId: number): Promise<void> {
  await db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, tokenId));
  forgetTokenChecks(db, `personal_access_token:${tokenId}`);
}

/** The personal access token the request came with; other credentials are refused with GitLab's words. */
async function requestToken(ctx: Ctx): Promise<PersonalAccessTokenRow | null> {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  const tokenId = ctx.actor.personalAccessTokenId;
  if (tokenId === undefined) return null;
  const [token] = await ctx.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, tokenId));
  return token ?? null;
}

const notAPersonalAccessToken = "400 Bad request - This endpoint requires token type to be a personal access token";

/** `GET /personal_access_tokens/self`: the token the request came with, whatever its scopes (any token may). */
export async function getCurrentPersonalAccessToken(ctx: Ctx): Promise<PersonalAccessTokenRow> {
  const token = await requestToken(ctx);
  if (!token) throw new BadRequestError(notAPersonalAccessToken);
  return token;
}

/** `DELETE /personal_access_tokens/self`: the token revokes itself. */
export async function revokeCurrentPersonalAccessToken(ctx: Ctx): Promise<void> {
  const token = await getCurrentPersonalAccessToken(ctx);
  await markRevoked(ctx.db, token.id);
}

/**
 * A rotated token's lifetime when none is given: a week, GitLab's `RotateService::EXPIRATION_PERIOD` (GitLab requires
 * tokens to expire by default, so a rotation never makes a token that lives for ever unasked).
 */
const rotatedTokenDays = 7;

function daysAfter(now: Date, days: number): string {
  return new Date(now.getTime() + days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
}

/**
 * Revokes `token` and issues its successor with the same name and scopes, in one transaction, as GitLab's
 * RotateService: only one of two rotations at once succeeds, the other finds the token already revoked.
 */
async function rotate(ctx: Ctx, token: PersonalAccessTokenRow, expiresAt: string | undefined): Promise<IssuedPersonalAccessToken> {
  if (token.revoked) throw new BadRequestError("400 Bad request - Token already revoked");
  const successor = { name: token.name, scopes: token.scopes.filter(isKnownScope), expiresAt: expiresAt ?? daysAfter(ctx.now, rotatedTokenDays) };
  try {
    const issued = await ctx.db.transaction(async (tx) => {
      const revoked = await tx
        .update(personalAccessTokens)
        .set({ revoked: true })
        .where(and(eq(personalAccessTokens.id, token.id), eq(personalAccessTokens.revoked, false)))
        .returning({ id: personalAccessTokens.id });
      if (revoked.length === 0) throw new BadRequestError("400 Bad request - Token already revoked");
      return insertPersonalAccessToken(tx, token.userId, successor, ctx.now);
    });
    forgetTokenChecks(ctx.db, `personal_access_token:${token.id}`);
    return issued;
  } catch (error) {
    // GitLab answers a rotation its model refuses with the model's words in a 400's message.
    if (error instanceof ValidationError) throw new BadRequestError(`400 Bad request - ${error.message}`);
    throw error;
  }
}

/**
 * `POST /personal_access_tokens/:id/rotate`: the owner or an admin rotates a token. Anyone else gets 401 whether the
 * token exists or not, and only admins learn that a token does not exist (404), as on GitLab.
 */
export async function rotatePersonalAccessToken(ctx: Ctx, tokenId: number, input: { expiresAt?: string }): Promise<IssuedPersonalAccessToken> {
  if (ctx.actor.kind !== "user") throw new UnauthorizedError();
  const caller = ctx.actor.user;
  const [token] = await ctx.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, tokenId));
  if (!token || (!caller.isAdmin && token.userId !== caller.id)) throw caller.isAdmin ? new NotFoundError() : new UnauthorizedError();
  return rotate(ctx, token, input.expiresAt);
}

/** `POST /personal_access_tokens/self/rotate`: the token the request came with rotates itself (405 for any other credential). */
export async function rotateCurrentPersonalAccessToken(ctx: Ctx, input: { expiresAt?: string }): Promise<IssuedPersonalAccessToken> {
  const token = await requestToken(ctx);
  if (!token) throw new MethodNotAllowedError();
  return rotate(ctx, token, input.expiresAt);
}
