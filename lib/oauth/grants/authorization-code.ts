import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { oauthAuthorizationCodes, oauthGrants, users } from "@/lib/db/schema";
import { authenticateClientIfPresent } from "../client-auth";
import { invalidGrant, missingParameter } from "../errors";
import { verifierMatches } from "../pkce";
import { issueTokens, revokeGrant, tokenDigest, tokenResponseBody } from "../tokens";
import type { GrantHandler } from "./types";

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636):
 * - the client authenticates (public clients by client_id alone);
 * - the code must exist, be unexpired, unused, issued to this client and for this exact redirect_uri;
 * - a code issued with a PKCE challenge needs the matching verifier; a verifier for a code without one is refused;
 * - a code presented a second time is refused and everything issued from it is revoked.
 */
export const authorizationCodeGrant: GrantHandler = {
  parameters: new Set(["code", "redirect_uri", "code_verifier", "client_id", "client_secret"]),
  async handle({ db, request, params, now }) {
    const application = (await authenticateClientIfPresent(db, request, params, { required: true }))!;
    if (!params.code) throw missingParameter("code");
    if (!params.redirect_uri) throw missingParameter("redirect_uri");

    const [found] = await db
      .select({ code: oauthAuthorizationCodes, grant: oauthGrants, user: users })
      .from(oauthAuthorizationCodes)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAuthorizationCodes.grantId))
      .innerJoin(users, eq(users.id, oauthGrants.userId))
      .where(eq(oauthAuthorizationCodes.codeDigest, tokenDigest(params.code)));
    if (!found) throw invalidGrant();
    const { code, grant, user } = found;

    if (code.usedAt) {
      await db.transaction((tx) => revokeGrant(tx, grant.id, now));
      throw invalidGrant();
    }
    if (code.applicationId !== application.id) throw invalidGrant();
    if (code.expiresAt <= now || grant.revokedAt || user.state !== "active") throw invalidGrant();
    if (code.redirectUri !== params.redirect_uri) throw invalidGrant();
    if (code.codeChallenge && code.codeChallengeMethod) {
      if (!params.code_verifier) throw missingParameter("code_verifier");
      if (!verifierMatches(params.code_verifier, code.codeChallenge, code.codeChallengeMethod)) throw invalidGrant();
    } else if (params.code_verifier !== undefined) {
      // A verifier for a code issued without a challenge is a downgrade attempt (RFC 9700 §4.8.2).
      throw invalidGrant();
    }

    const issued = await db.transaction(async (tx) => {
      const claimed = await tx
        .update(oauthAuthorizationCodes)
        .set({ usedAt: now })
        .where(and(eq(oauthAuthorizationCodes.id, code.id), isNull(oauthAuthorizationCodes.usedAt)))
        .returning({ id: oauthAuthorizationCodes.id });
      // Another request redeemed it between our read and this update: that is a replay too.
      if (claimed.length === 0) return null;
      return issueTokens(tx, grant, { scopes: grant.scopes, now, withRefreshToken: true });
    });
    if (!issued) {
      await db.transaction((tx) => revokeGrant(tx, grant.id, now));
      throw invalidGrant();
    }
    return tokenResponseBody(issued, { db, user, application, grant, nonce: code.nonce, now });
  },
};
