import "server-only";
import { verifySignIn } from "@/lib/auth/sign-in";
import { isKnownScope } from "@/lib/api/scopes";
import { clientAddress } from "@/lib/http/client-address";
import { authenticateClientIfPresent } from "../client-auth";
import { invalidGrant, missingParameter, oauthError } from "../errors";
import { parseScopeString } from "../scopes";
import { createGrant, issueTokens, tokenResponseBody } from "../tokens";
import type { GrantHandler } from "./types";

const defaultScopes = ["api"];

/**
 * `grant_type=password` (RFC 6749 §4.3), for first-party tools:
 * - client credentials are optional, but checked when given;
 * - scope defaults to `api` and must be within the application's scopes;
 * - unknown users, wrong passwords, blocked or locked accounts and accounts with two-factor authentication all get
 *   the same `invalid_grant`, and wrong passwords count towards the account lockout.
 */
export const passwordGrant: GrantHandler = {
  parameters: new Set(["username", "password", "scope", "client_id", "client_secret"]),
  async handle({ db, request, params, now }) {
    const application = await authenticateClientIfPresent(db, request, params, { required: false });
    if (!params.username) throw missingParameter("username");
    if (!params.password) throw missingParameter("password");

    const scopes = params.scope === undefined ? defaultScopes : parseScopeString(params.scope);
    if (!scopes || scopes.length === 0 || !scopes.every(isKnownScope)) throw oauthError("invalid_scope");
    if (application && !scopes.every((scope) => application.scopes.includes(scope))) throw oauthError("invalid_scope");

    // No second factor can be given here, so accounts with two-factor authentication are refused.
    const result = await verifySignIn(
      db,
      { login: params.username, password: params.password, clientAddress: clientAddress(request.headers) },
      now,
    );
    if (!result.ok) throw invalidGrant();
    const user = result.user;

    const { issued, grant } = await db.transaction(async (tx) => {
      const grant = await createGrant(tx, { applicationId: application?.id ?? null, userId: user.id, scopes, authTime: now, now });
      return { grant, issued: await issueTokens(tx, grant, { scopes, now, withRefreshToken: true }) };
    });
    return tokenResponseBody(issued, { db, user, application, grant, now });
  },
};
