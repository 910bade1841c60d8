import "server-only";
import type { TokenResolver } from "@/lib/api/authenticate";
import { ForbiddenError, InvalidTokenError, UnauthorizedError } from "@/lib/errors";
import { accessTokenState, findAccessToken } from "./tokens";

/**
 * Lets `/api/v4` (and git over HTTP) accept OAuth access tokens with their scopes, answering as GitLab does when one is
 * spent. A client credentials token has no user to act as: GitLab checks its expiry and revocation, then finds no
 * user behind it and answers 401 `{"message":"401 Unauthorized"}` (`access_token.user || raise(UnauthorizedError)` in
 * its `AuthFinders`), on every route, including those anonymous callers may use.
 */
export const resolveOAuthAccessToken: TokenResolver = async (db, value, now) => {
  const found = await findAccessToken(db, value);
  if (!found) return undefined;
  const state = accessTokenState(found, now);
  if (state === "revoked") throw new InvalidTokenError("Token was revoked. You have to re-authorize from the user.");
  if (state === "expired") {
    throw new InvalidTokenError("Token is expired. You can either do re-authorization or token refresh.");
  }
  if (found.principal !== "user") throw new UnauthorizedError();
  if (found.user.state === "blocked") throw new ForbiddenError("Your account has been blocked.");
  return { kind: "user", user: found.user, scopes: new Set(found.scopes), oauthTokenResource: found.resource };
};
