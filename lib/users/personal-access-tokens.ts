import "server-only";
import { and, desc, eq } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { generateSecret, sha256Hex } from "@/lib/crypto";
import type { Executor } from "@/lib/db";
import { personalAccessTokens, users, type PersonalAccessTokenRow, type UserRow } from "@/lib/db/schema";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { isKnownScope, type Scope } from "@/lib/api/scopes";
import { getUser, requireAdmin } from "./users";

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
  if (input.name.trim() === "" || input.name.length > 255) errors.name = ["must be 1 to 255 characters"];
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

/** A signed-in user creates a token for themselves (profile page). */
export async function createOwnPersonalAccessToken(ctx: Ctx, input: NewPersonalAccessToken): Promise<IssuedPersonalAccessToken> {
  const user = requireSessionUser(ctx);
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
}

function requireSessionUser(ctx: Ctx): UserRow {
  if (ctx.actor.kind !== "user") throw new NotFoundError("User");
  return ctx.actor.user;
}

/** The token row and its owner for a presented token value: one indexed lookup by digest. */
export async function findPersonalAccessTokenByValue(
  db: Executor,
  token: string,
): Promise<{ token: PersonalAccessTokenRow; user: UserRow } | undefined> {
  const [row] = await db
    .select({ token: personalAccessTokens, user: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenDigest, sha256Hex(token)));
  return row;
}

export function isTokenExpired(token: Pick<PersonalAccessTokenRow, "expiresAt">, now: Date): boolean {
  return token.expiresAt !== null && token.expiresAt <= now.toISOString().slice(0, 10);
}

export function serializePersonalAccessToken(issued: IssuedPersonalAccessToken | PersonalAccessTokenRow, now: Date) {
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
