import "server-only";
import { eq, sql } from "drizzle-orm";
import { preparedQuery } from "@/lib/db";
import { oauthApplications, oauthAuthorizationCodes, oauthGrants, users } from "@/lib/db/schema";
import { authenticateClientIfPresent } from "../client-auth";
import { invalidGrant, invalidRequest, missingParameter } from "../errors";
import { maxCodeVerifierLength, verifierMatches } from "../pkce";
import { tokenRequestResource } from "../resource";
import { exchangeForTokens, revokeGrant, tokenDigest, tokenResponseBody } from "../tokens";
import type { GrantHandler } from "./types";

/** The code with its grant, user and application (which authenticates the client): one lookup. */
const codeByDigest = preparedQuery((db) =>
  db
    .select({ code: oauthAuthorizationCodes, grant: oauthGrants, user: users, application: oauthApplications })
    .from(oauthAuthorizationCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAuthorizationCodes.grantId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .innerJoin(oauthApplications, eq(oauthApplications.id, oauthAuthorizationCodes.applicationId))
    .where(eq(oauthAuthorizationCodes.codeDigest, sql.placeholder("digest")))
    .prepare("oauth_authorization_code_by_digest"),
);

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636):
 * - the client authenticates (public clients by client_id alone);
 * - the code must exist, be unexpired, unused, issued to this client and for this exact redirect_uri;
 * - a code issued with a PKCE challenge needs a verifier whose transform matches it (any characters, as Doorkeeper:
 *   clients send standard base64 too), at most `maxCodeVerifierLength` long; a verifier for a code without one is refused;
 * - a code presented a second time is refused and everything issued from it is revoked.
 *
 * Two statements when it succeeds: the lookup, and one statement that spends the code and issues the tokens. The code
 * is only spent after every check passed, so a request that fails them cannot burn the legitimate client's code.
 */
export const authorizationCodeGrant: GrantHandler = {
  parameters: new Set(["code", "redirect_uri", "code_verifier", "client_id", "client_secret", "resource"]),
  async handle({ db, request, params, now }) {
    const [found] = params.code ? await codeByDigest(db).execute({ digest: tokenDigest(params.code) }) : [];
    const application = (await authenticateClientIfPresent(db, request, params, { required: true, expected: found?.application }))!;
    if (!params.code) throw missingParameter("code");
    if (!params.redirect_uri) throw missingParameter("redirect_uri");
    if (params.code_verifier !== undefined && params.code_verifier.length > maxCodeVerifierLength) {
      throw invalidRequest(`The code_verifier is too long (maximum is ${maxCodeVerifierLength} characters).`);
    }
    if (!found) throw invalidGrant();
    const { code, grant, user } = found;

    if (code.usedAt) {
      await revokeGrant(db, grant.id, now);
      throw invalidGrant();
    }
    if (code.applicationId !== application.id) throw invalidGrant();
    if (code.expiresAt <= now || grant.revokedAt || user.state !== "active") throw invalidGrant();
    if (code.redirectUri !== params.redirect_uri) throw invalidGrant();
    // GitLab's own check for applications that registered themselves (their codes always carry a challenge).
    if (application.registration !== "manual" && !params.code_verifier) {
      throw invalidRequest("PKCE code_verifier is required for dynamic OAuth applications");
    }
    if (code.codeChallenge && code.codeChallengeMethod) {
      if (!params.code_verifier) throw missingParameter("code_verifier");
      if (!verifierMatches(params.code_verifier, code.codeChallenge, code.codeChallengeMethod)) throw invalidGrant();
    } else if (params.code_verifier !== undefined) {
      // A verifier for a code issued without a challenge is a downgrade attempt (RFC 9700 §4.8.2).
      throw invalidGrant();
    }

    tokenRequestResource(params.resource, grant.resource);

    // Another request may have redeemed it since the lookup: that is a replay too.
    const issued = await exchangeForTokens(db, { code: code.id }, grant, { scopes: grant.scopes, now });
    if (!issued) {
      await revokeGrant(db, grant.id, now);
      throw invalidGrant();
    }
    return tokenResponseBody(issued, { db, user, application, grant, nonce: code.nonce, now });
  },
};
