import "server-only";
import { authenticateClientIfPresent } from "../client-auth";
import { invalidGrant, missingParameter, oauthError } from "../errors";
import { tokenRequestResource } from "../resource";
import { parseScopeString } from "../scopes";
import { accessTokenByRefreshDigest, exchangeForTokens, revokeGrant, tokenDigest, tokenResponseBody } from "../tokens";
import type { GrantHandler } from "./types";

/**
 * `grant_type=refresh_token` (RFC 6749 §6) with rotation:
 * - a token issued to an application can only be refreshed by that application;
 * - every refresh issues a new pair and revokes the old one at once;
 * - presenting an already-rotated refresh token revokes every token of the grant (RFC 9700 reuse detection);
 * - `scope` may narrow the grant's scopes, never widen them;
 * - `resource`, if sent, must be the grant's own (RFC 8707): the tokens keep their audience.
 *
 * Two statements when it succeeds: the lookup, and one statement that rotates and issues.
 */
export const refreshTokenGrant: GrantHandler = {
  parameters: new Set(["refresh_token", "scope", "client_id", "client_secret", "resource"]),
  async handle({ db, request, params, now }) {
    if (!params.refresh_token) throw missingParameter("refresh_token");
    const [found] = await accessTokenByRefreshDigest(db).execute({ digest: tokenDigest(params.refresh_token) });
    const client = await authenticateClientIfPresent(db, request, params, { required: false, expected: found?.application });
    if (!found) throw invalidGrant();
    const { token, grant, user, application } = found;

    if (token.refreshedAt) {
      await revokeGrant(db, grant.id, now);
      throw invalidGrant();
    }
    if ((token.applicationId ?? null) !== (client?.id ?? null)) throw invalidGrant();
    // Only a user's tokens have refresh tokens (`oauth_access_tokens_owner_check`); a user is there to be active.
    if (token.revokedAt || grant.revokedAt || user?.state !== "active") throw invalidGrant();

    let scopes = token.scopes;
    if (params.scope !== undefined) {
      const requested = parseScopeString(params.scope);
      if (!requested || requested.length === 0 || !requested.every((scope) => token.scopes.includes(scope))) {
        throw oauthError("invalid_scope");
      }
      scopes = requested;
    }

    // The new pair keeps the grant's audience; naming another resource is refused (RFC 8707 §2.2).
    tokenRequestResource(params.resource, grant.resource);

    const issued = await exchangeForTokens(db, { refreshTokenOf: token.id }, grant, { scopes, now });
    if (!issued) {
      // A concurrent request rotated this refresh token first: this presentation is a reuse.
      await revokeGrant(db, grant.id, now);
      throw invalidGrant();
    }
    return tokenResponseBody(issued, { db, user, application, grant, now });
  },
};
