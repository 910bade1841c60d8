import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import type { Database, Executor } from "@/lib/db";
import {
  oauthAccessTokens,
  oauthApplications,
  oauthAuthorizationCodes,
  oauthGrants,
  users,
  type OAuthAccessTokenRow,
  type OAuthApplicationRow,
  type OAuthGrantRow,
  type UserRow,
} from "@/lib/db/schema";
import { signIdToken } from "./id-token";
import { formatScopes } from "./scopes";

export const accessTokenLifetimeSeconds = 7200;

/** Tokens, codes and device codes: 32 random bytes as 64 hex characters, like GitLab's. Stored only as digests. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString("hex");
}

export function tokenDigest(token: string): string {
  return sha256Hex(token);
}

export async function createGrant(
  tx: Executor,
  values: { applicationId: number | null; userId: number; scopes: string[]; authTime: Date | null; now: Date },
): Promise<OAuthGrantRow> {
  const [grant] = await tx
    .insert(oauthGrants)
    .values({
      applicationId: values.applicationId,
      userId: values.userId,
      scopes: values.scopes,
      authTime: values.authTime,
      createdAt: values.now,
    })
    .returning();
  if (!grant) throw new Error("insert into oauth_grants returned no row");
  return grant;
}

export interface IssuedTokens {
  row: OAuthAccessTokenRow;
  accessToken: string;
  refreshToken: string | null;
}

/** Issues an access token (and a refresh token unless told otherwise) within a grant. */
export async function issueTokens(
  tx: Executor,
  grant: OAuthGrantRow,
  options: { scopes: string[]; now: Date; withRefreshToken: boolean },
): Promise<IssuedTokens> {
  const accessToken = generateOpaqueToken();
  const refreshToken = options.withRefreshToken ? generateOpaqueToken() : null;
  const [row] = await tx
    .insert(oauthAccessTokens)
    .values({
      tokenDigest: tokenDigest(accessToken),
      refreshTokenDigest: refreshToken ? tokenDigest(refreshToken) : null,
      grantId: grant.id,
      applicationId: grant.applicationId,
      userId: grant.userId,
      scopes: options.scopes,
      expiresAt: new Date(options.now.getTime() + accessTokenLifetimeSeconds * 1000),
      createdAt: options.now,
    })
    .returning();
  if (!row) throw new Error("insert into oauth_access_tokens returned no row");
  return { row, accessToken, refreshToken };
}

/**
 * Revokes a whole grant: the grant itself and every token issued in it. Used when a spent code or refresh token is
 * presented again (RFC 9700 §2.2.2, §4.14): someone other than the client may hold it.
 */
export async function revokeGrant(tx: Executor, grantId: number, now: Date): Promise<void> {
  await tx.update(oauthGrants).set({ revokedAt: now }).where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  await tx
    .update(oauthAccessTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthAccessTokens.grantId, grantId), isNull(oauthAccessTokens.revokedAt)));
  await tx
    .update(oauthAuthorizationCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthAuthorizationCodes.grantId, grantId), isNull(oauthAuthorizationCodes.usedAt)));
}

export interface TokenResponseContext {
  db: Database;
  user: UserRow;
  application: OAuthApplicationRow | null;
  grant: OAuthGrantRow;
  nonce?: string | null;
  now: Date;
}

/** The token response body, keys in GitLab's order; `id_token` is added whenever `openid` was granted. */
export async function tokenResponseBody(issued: IssuedTokens, context: TokenResponseContext) {
  const body: Record<string, string | number> = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: accessTokenLifetimeSeconds,
  };
  if (issued.refreshToken) body.refresh_token = issued.refreshToken;
  body.scope = formatScopes(issued.row.scopes);
  body.created_at = Math.floor(issued.row.createdAt.getTime() / 1000);
  if (issued.row.scopes.includes("openid") && context.application) {
    body.id_token = await signIdToken(context.db, {
      user: context.user,
      clientId: context.application.uid,
      scopes: issued.row.scopes,
      authTime: context.grant.authTime,
      nonce: context.nonce,
      now: context.now,
    });
  }
  return body;
}

export type AccessTokenState = "active" | "expired" | "revoked";

export function accessTokenState(token: Pick<OAuthAccessTokenRow, "revokedAt" | "expiresAt">, grant: Pick<OAuthGrantRow, "revokedAt">, now: Date): AccessTokenState {
  if (token.revokedAt || grant.revokedAt) return "revoked";
  if (token.expiresAt <= now) return "expired";
  return "active";
}

/** An access token by its value, with its grant and user: one indexed lookup. */
export async function findAccessToken(db: Executor, token: string): Promise<FoundAccessToken | undefined> {
  const [row] = await db
    .select({ token: oauthAccessTokens, grant: oauthGrants, user: users, application: oauthApplications })
    .from(oauthAccessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
    .innerJoin(users, eq(users.id, oauthAccessTokens.userId))
    .leftJoin(oauthApplications, eq(oauthApplications.id, oauthAccessTokens.applicationId))
    .where(eq(oauthAccessTokens.tokenDigest, tokenDigest(token)));
  return row;
}

export interface FoundAccessToken {
  token: OAuthAccessTokenRow;
  grant: OAuthGrantRow;
  user: UserRow;
  application: OAuthApplicationRow | null;
}
