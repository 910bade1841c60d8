import "server-only";
import { and, eq, isNull, or } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { oauthAccessTokens, oauthApplications } from "@/lib/db/schema";
import { forgetTokenChecks, type OAuthAccessTokenCheck } from "@/lib/token-checks/checks";
import { formatScopes } from "./scopes";
import { authenticateClientIfPresent, readClientCredentials } from "./client-auth";
import { invalidRequest, OAuthError } from "./errors";
import { accessTokenState, findAccessToken, tokenDigest } from "./tokens";
import { userinfoGroupClaims } from "@/lib/groups/claims";
import { issuer, userClaims } from "./id-token";

const invalidTokenDescription = "The access token is invalid";

/** 401 `invalid_token` as `/oauth/token/info` and userinfo send it, whatever made the token unusable. */
export function invalidTokenError(): OAuthError {
  return new OAuthError("invalid_token", invalidTokenDescription, 401, { state: "unauthorized" });
}

async function findActiveToken(db: Database, token: string | null, now: Date): Promise<OAuthAccessTokenCheck> {
  const found = token ? await findAccessToken(db, token) : undefined;
  if (!found || !isUsable(found, now)) throw invalidTokenError();
  return found;
}

/** Active, and acting for an active user or (client credentials) for its application, which exists while it does. */
function isUsable(found: OAuthAccessTokenCheck, now: Date): boolean {
  return accessTokenState(found, now) === "active" && (found.principal === "application" || found.user.state === "active");
}

/**
 * `GET /oauth/token/info`: GitLab's body, with its deprecated aliases `scopes` and `expires_in_seconds`, plus `aud` for
 * a token bound to a resource. A hot path for resource servers: a token seen before is answered from the token-check
 * cache, without a query. A client credentials token has no resource owner: `resource_owner_id` is null, as in
 * Doorkeeper's `as_json`.
 */
export async function getTokenInfo(db: Database, token: string | null, now: Date) {
  const found = await findActiveToken(db, token, now);
  const expiresIn = Math.max(0, Math.floor((found.expiresAt.getTime() - now.getTime()) / 1000));
  return {
    resource_owner_id: found.principal === "user" ? found.user.id : null,
    scope: found.scopes,
    expires_in: expiresIn,
    application: { uid: found.applicationUid },
    created_at: Math.floor(found.createdAt.getTime() / 1000),
    scopes: found.scopes,
    expires_in_seconds: expiresIn,
    // Beyond GitLab's body, and only for a token bound to a resource (RFC 8707), so every other answer stays GitLab's.
    ...(found.resource === null ? {} : { aud: found.resource }),
  };
}

/**
 * `GET|POST /oauth/userinfo` (OpenID Connect Core §5.3): needs a token with `openid`. Without it Doorkeeper (GitLab's
 * OAuth library) answers its forbidden-token response: 403 `invalid_scope`, with no `WWW-Authenticate` challenge.
 * A client credentials token names no end-user to describe, so it is refused as an invalid token (RFC 6750 §3.1)
 * even with `openid`; GitLab would fail on its missing resource owner instead.
 */
export async function getUserInfo(db: Database, token: string | null, now: Date) {
  const found = await findActiveToken(db, token, now);
  if (!found.scopes.includes("openid")) {
    throw new OAuthError("invalid_scope", 'Access to this resource requires scope "openid".', 403, { state: "forbidden" });
  }
  if (found.principal !== "user") throw invalidTokenError();
  return { ...userClaims(found.user, found.scopes), ...(await userinfoGroupClaims(db, found.user.id, now)) };
}

/**
 * `POST /oauth/revoke` (RFC 7009). Unknown tokens answer 200 like revoked ones, so the endpoint reveals nothing.
 * A token issued to a confidential application can only be revoked by that application; revoking either half of a
 * pair revokes both.
 */
export async function revokeToken(db: Database, request: Request, params: Record<string, string | undefined>, now: Date): Promise<void> {
  if (!params.token) throw invalidRequest("Missing required parameter: token.");
  const client = await authenticateClientIfPresent(db, request, params, { required: false });
  const digest = tokenDigest(params.token);
  const byAccess = eq(oauthAccessTokens.tokenDigest, digest);
  const byRefresh = eq(oauthAccessTokens.refreshTokenDigest, digest);
  const lookup = params.token_type_hint === "refresh_token" ? or(byRefresh, byAccess) : or(byAccess, byRefresh);
  const [row] = await db
    .select({ id: oauthAccessTokens.id, applicationId: oauthAccessTokens.applicationId, confidential: oauthApplications.confidential })
    .from(oauthAccessTokens)
    .leftJoin(oauthApplications, eq(oauthApplications.id, oauthAccessTokens.applicationId))
    .where(lookup);
  if (!row) return;
  if (row.applicationId !== null) {
    const mustBeThatClient = row.confidential || client !== null;
    if (mustBeThatClient && client?.id !== row.applicationId) {
      throw new OAuthError("unauthorized_client", "You are not authorized to revoke this token", 403);
    }
  }
  await db
    .update(oauthAccessTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthAccessTokens.id, row.id), isNull(oauthAccessTokens.revokedAt)));
  forgetTokenChecks(db, `oauth_access_token:${row.id}`);
}

/**
 * `POST /oauth/introspect` (RFC 7662). The caller authenticates as a client (or with a bearer token of its own, a
 * client credentials token included); a client learns only about tokens issued to it. Anything else is
 * `{"active":false}`. A client credentials token is described without `username` and `sub`: it has no user.
 */
export async function introspectToken(db: Database, request: Request, params: Record<string, string | undefined>, now: Date) {
  let callerId: number | null;
  if (readClientCredentials(request, params)) {
    callerId = (await authenticateClientIfPresent(db, request, params, { required: true }))!.id;
  } else {
    const bearer = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!bearer) throw invalidRequest("Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.");
    if (bearer === params.token) throw invalidTokenError();
    callerId = (await findActiveToken(db, bearer, now)).applicationId;
  }
  if (!params.token) throw invalidRequest("Missing required parameter: token.");
  const found = await findAccessToken(db, params.token);
  if (!found || !isUsable(found, now)) return { active: false };
  if (found.applicationId !== null && found.applicationId !== callerId) return { active: false };
  const user = found.principal === "user" ? found.user : null;
  return {
    active: true,
    scope: formatScopes(found.scopes),
    client_id: found.applicationUid,
    ...(user && { username: user.username }),
    token_type: "Bearer",
    exp: Math.floor(found.expiresAt.getTime() / 1000),
    iat: Math.floor(found.createdAt.getTime() / 1000),
    ...(user && { sub: String(user.id) }),
    // RFC 7662 §2.2: the token's audience, when it was issued for a resource (RFC 8707).
    ...(found.resource === null ? {} : { aud: found.resource }),
    iss: issuer(),
  };
}
