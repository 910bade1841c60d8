import "server-only";
import type { OAuthApplicationRow } from "@/lib/db/schema";
import { authenticateClientIfPresent } from "../client-auth";
import { oauthError, unauthorizedClient } from "../errors";
import { parseScopeString } from "../scopes";
import { accessTokenResponseBody, issueApplicationToken } from "../tokens";
import type { GrantHandler } from "./types";

/** Doorkeeper's `default_scopes`, which GitLab sets to `api`. */
const defaultScope = "api";

/**
 * The scopes Doorkeeper (5.8, GitLab's) grants: those asked for, each within the application's; when none are asked
 * for (or only blanks), the default scope if the application has it (`build_scopes`: the application's scopes common
 * with the defaults). Whatever is left empty or falls outside the application is `invalid_scope`.
 */
function grantedScopes(requested: string | undefined, application: OAuthApplicationRow): string[] {
  const scopes =
    requested === undefined || requested.trim() === ""
      ? application.scopes.filter((scope) => scope === defaultScope)
      : parseScopeString(requested);
  if (!scopes || scopes.length === 0 || !scopes.every((scope) => application.scopes.includes(scope))) {
    throw oauthError("invalid_scope");
  }
  return scopes;
}

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4), checked in Doorkeeper's order:
 * - the client authenticates with its secret, in HTTP Basic or the body (`invalid_client`, 401, otherwise);
 * - only a confidential application may use it (RFC 6749 §4.4: "MUST only be used by confidential clients"): a public
 *   one, which anybody can name, gets `unauthorized_client` (401), Doorkeeper's refusal of a grant flow to a client;
 * - the scopes keep within the application's (`invalid_scope`);
 * - the token acts as the application, with no user: no refresh token (§4.4.3) and no ID token.
 */
export const clientCredentialsGrant: GrantHandler = {
  parameters: new Set(["scope", "client_id", "client_secret"]),
  async handle({ db, request, params, now }) {
    const application = (await authenticateClientIfPresent(db, request, params, { required: true }))!;
    if (!application.confidential) throw unauthorizedClient();
    const scopes = grantedScopes(params.scope, application);
    return accessTokenResponseBody(await issueApplicationToken(db, application, { scopes, now }));
  },
};
