import "server-only";
import { randomBytes } from "node:crypto";
import { eq, sql, type SQL } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import { placeholder, preparedQuery, preparedStatement, type Database, type Executor } from "@/lib/db";
import {
  oauthAccessTokens,
  oauthApplications,
  oauthAuthorizationCodes,
  oauthGrants,
  users,
  type OAuthApplicationRow,
  type OAuthGrantRow,
  type UserRow,
} from "@/lib/db/schema";
import { forgetTokenChecks, tokenCheck, type OAuthAccessTokenCheck } from "@/lib/token-checks/checks";
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
  values: { applicationId: number | null; userId: number; scopes: string[]; authTime: Date | null; resource?: string | null; now: Date },
): Promise<OAuthGrantRow> {
  const [grant] = await tx
    .insert(oauthGrants)
    .values({
      applicationId: values.applicationId,
      userId: values.userId,
      scopes: values.scopes,
      authTime: values.authTime,
      resource: values.resource ?? null,
      createdAt: values.now,
    })
    .returning();
  if (!grant) throw new Error("insert into oauth_grants returned no row");
  return grant;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  scopes: string[];
  createdAt: Date;
}

function newTokenValues(grant: Pick<OAuthGrantRow, "id" | "applicationId" | "userId">, options: { scopes: string[]; now: Date; withRefreshToken: boolean }) {
  const accessToken = generateOpaqueToken();
  const refreshToken = options.withRefreshToken ? generateOpaqueToken() : null;
  const issued: IssuedTokens = { accessToken, refreshToken, scopes: options.scopes, createdAt: options.now };
  const row = {
    tokenDigest: tokenDigest(accessToken),
    refreshTokenDigest: refreshToken ? tokenDigest(refreshToken) : null,
    grantId: grant.id,
    applicationId: grant.applicationId,
    userId: grant.userId,
    scopes: options.scopes,
    expiresAt: new Date(options.now.getTime() + accessTokenLifetimeSeconds * 1000),
    createdAt: options.now,
  };
  return { issued, row };
}

/** Issues an access token (and a refresh token unless told otherwise) within a grant. */
export async function issueTokens(
  tx: Executor,
  grant: OAuthGrantRow,
  options: { scopes: string[]; now: Date; withRefreshToken: boolean },
): Promise<IssuedTokens> {
  const { issued, row } = newTokenValues(grant, options);
  await tx.insert(oauthAccessTokens).values(row);
  return issued;
}

/**
 * Spends what an exchange presented and issues the new pair in one statement, so the exchange is one round trip and
 * atomic without a transaction: `spend` is an UPDATE that answers one row when it spent what it was given, and none
 * when a concurrent request spent it first.
 */
function spendingStatement(spend: SQL) {
  return preparedStatement<{ id: number }>(
    () => sql`with spent as (${spend})
      insert into ${oauthAccessTokens} (token_digest, refresh_token_digest, grant_id, application_id, user_id, scopes, expires_at, created_at)
      select ${placeholder("tokenDigest")}, ${placeholder("refreshTokenDigest")}, ${placeholder("grantId")}, ${placeholder("applicationId")},
        ${placeholder("userId")}, ${placeholder("scopes", oauthAccessTokens.scopes)}::text[], ${placeholder("expiresAt", oauthAccessTokens.expiresAt)},
        ${placeholder("now", oauthAccessTokens.createdAt)}
      from spent
      returning id`,
  );
}

const redeemCodeStatement = spendingStatement(
  sql`update ${oauthAuthorizationCodes} set used_at = ${placeholder("now", oauthAuthorizationCodes.usedAt)}
    where id = ${placeholder("spentId")} and used_at is null returning id`,
);

const rotateRefreshTokenStatement = spendingStatement(
  sql`update ${oauthAccessTokens} set refreshed_at = ${placeholder("now", oauthAccessTokens.refreshedAt)}, revoked_at = ${placeholder("now", oauthAccessTokens.revokedAt)}
    where id = ${placeholder("spentId")} and refreshed_at is null and revoked_at is null returning id`,
);

/**
 * Redeems an authorization code (`spent.code`) or rotates a refresh token (`spent.refreshTokenOf`, the row it was
 * issued with) and issues a new pair in `grant`. Null when the code or refresh token was spent already.
 */
export async function exchangeForTokens(
  db: Database,
  spent: { code: number } | { refreshTokenOf: number },
  grant: Pick<OAuthGrantRow, "id" | "applicationId" | "userId">,
  options: { scopes: string[]; now: Date },
): Promise<IssuedTokens | null> {
  const { issued, row } = newTokenValues(grant, { ...options, withRefreshToken: true });
  const run = "code" in spent ? redeemCodeStatement : rotateRefreshTokenStatement;
  const inserted = await run(db, { ...row, spentId: "code" in spent ? spent.code : spent.refreshTokenOf, now: options.now });
  if (inserted.length === 0) return null;
  // The rotated access token stops working at once.
  if ("refreshTokenOf" in spent) forgetTokenChecks(db, `oauth_access_token:${spent.refreshTokenOf}`);
  return issued;
}

const issueApplicationTokenStatement = preparedStatement<{ id: number }>(
  () => sql`with new_grant as (
      insert into ${oauthGrants} (application_id, user_id, scopes, created_at)
      values (${placeholder("applicationId")}, null, ${placeholder("scopes", oauthGrants.scopes)}::text[], ${placeholder("now", oauthGrants.createdAt)})
      returning id
    )
    insert into ${oauthAccessTokens} (token_digest, refresh_token_digest, grant_id, application_id, user_id, scopes, expires_at, created_at)
    select ${placeholder("tokenDigest")}, null, new_grant.id, ${placeholder("applicationId")}, null,
      ${placeholder("scopes", oauthAccessTokens.scopes)}::text[], ${placeholder("expiresAt", oauthAccessTokens.expiresAt)},
      ${placeholder("now", oauthAccessTokens.createdAt)}
    from new_grant
    returning id`,
);

/**
 * Issues a client credentials token (RFC 6749 §4.4.3): in a grant of its own with no user, and without a refresh
 * token, in one statement. Earlier tokens of the application stay valid, as Doorkeeper leaves them unless configured
 * otherwise (GitLab does not).
 */
export async function issueApplicationToken(
  db: Database,
  application: Pick<OAuthApplicationRow, "id">,
  options: { scopes: string[]; now: Date },
): Promise<IssuedTokens> {
  const accessToken = generateOpaqueToken();
  await issueApplicationTokenStatement(db, {
    applicationId: application.id,
    scopes: options.scopes,
    tokenDigest: tokenDigest(accessToken),
    expiresAt: new Date(options.now.getTime() + accessTokenLifetimeSeconds * 1000),
    now: options.now,
  });
  return { accessToken, refreshToken: null, scopes: options.scopes, createdAt: options.now };
}

const revokeGrantStatement = preparedStatement(
  () => sql`with revoked_grant as (
      update ${oauthGrants} set revoked_at = ${placeholder("now", oauthGrants.revokedAt)} where id = ${placeholder("grantId")} and revoked_at is null
    ), revoked_tokens as (
      update ${oauthAccessTokens} set revoked_at = ${placeholder("now", oauthAccessTokens.revokedAt)}
      where grant_id = ${placeholder("grantId")} and revoked_at is null
    )
    update ${oauthAuthorizationCodes} set used_at = ${placeholder("now", oauthAuthorizationCodes.usedAt)}
    where grant_id = ${placeholder("grantId")} and used_at is null`,
);

/**
 * Revokes a whole grant, in one statement: the grant itself, every token issued in it and its unused codes. Used when
 * a spent code or refresh token is presented again (RFC 9700 §2.2.2, §4.14): someone other than the client may hold it.
 */
export async function revokeGrant(db: Database, grantId: number, now: Date): Promise<void> {
  await revokeGrantStatement(db, { grantId, now });
  forgetTokenChecks(db, `grant:${grantId}`);
}

export interface TokenResponseContext {
  db: Database;
  user: UserRow;
  application: OAuthApplicationRow | null;
  grant: OAuthGrantRow;
  nonce?: string | null;
  now: Date;
}

/**
 * The token response body without an ID token, keys in GitLab's order: as the client credentials grant answers, whose
 * token names no end-user for an ID token to be about.
 */
export function accessTokenResponseBody(issued: IssuedTokens): Record<string, string | number> {
  const body: Record<string, string | number> = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: accessTokenLifetimeSeconds,
  };
  if (issued.refreshToken) body.refresh_token = issued.refreshToken;
  body.scope = formatScopes(issued.scopes);
  body.created_at = Math.floor(issued.createdAt.getTime() / 1000);
  return body;
}

/** The token response body of a user's token, keys in GitLab's order; `id_token` is added whenever `openid` was granted. */
export async function tokenResponseBody(issued: IssuedTokens, context: TokenResponseContext) {
  const body = accessTokenResponseBody(issued);
  // Signing costs more than the rest of the exchange: only when an ID token was asked for.
  if (issued.scopes.includes("openid") && context.application) {
    body.id_token = await signIdToken(context.db, {
      user: context.user,
      clientId: context.application.uid,
      scopes: issued.scopes,
      authTime: context.grant.authTime,
      nonce: context.nonce,
      now: context.now,
    });
  }
  return body;
}

export type AccessTokenState = "active" | "expired" | "revoked";

export function accessTokenState(token: Pick<OAuthAccessTokenCheck, "revoked" | "expiresAt">, now: Date): AccessTokenState {
  if (token.revoked) return "revoked";
  if (token.expiresAt <= now) return "expired";
  return "active";
}

/**
 * An access token's row with its grant, its user (none for a client credentials token) and its application, by the
 * digest of the access or of the refresh token.
 */
function accessTokenWithOwners(by: "access" | "refresh") {
  const digest = by === "access" ? oauthAccessTokens.tokenDigest : oauthAccessTokens.refreshTokenDigest;
  return preparedQuery((db) =>
    db
      .select({ token: oauthAccessTokens, grant: oauthGrants, user: users, application: oauthApplications })
      .from(oauthAccessTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
      .leftJoin(users, eq(users.id, oauthAccessTokens.userId))
      .leftJoin(oauthApplications, eq(oauthApplications.id, oauthAccessTokens.applicationId))
      .where(eq(digest, sql.placeholder("digest")))
      .prepare(`oauth_access_token_by_${by}_digest`),
  );
}

const accessTokenByDigest = accessTokenWithOwners("access");
/** For the refresh grant: one lookup finds the token, and the application that authenticates the client. */
export const accessTokenByRefreshDigest = accessTokenWithOwners("refresh");

async function loadAccessTokenCheck(db: Database, digest: string): Promise<OAuthAccessTokenCheck | undefined> {
  const [row] = await accessTokenByDigest(db).execute({ digest });
  if (!row) return undefined;
  const { token, grant, user, application } = row;
  const common = {
    kind: "oauth" as const,
    tokenId: token.id,
    grantId: token.grantId,
    scopes: token.scopes,
    expiresAt: token.expiresAt,
    createdAt: token.createdAt,
    revoked: token.revokedAt !== null || grant.revokedAt !== null,
      resource: grant.resource,
  };
  if (user) return { ...common, principal: "user", applicationId: token.applicationId, applicationUid: application?.uid ?? null, user };
  // No user: a client credentials token, whose application the database guarantees (and deletes it with).
  if (!application) throw new Error(`OAuth access token ${token.id} has neither a user nor an application`);
  return { ...common, principal: "application", applicationId: application.id, applicationUid: application.uid };
}

/** What checking an access token needs, usually from this process's cache of token checks. */
export function findAccessToken(db: Database, token: string): Promise<OAuthAccessTokenCheck | undefined> {
  return tokenCheck(db, tokenDigest(token), "oauth", loadAccessTokenCheck);
}
