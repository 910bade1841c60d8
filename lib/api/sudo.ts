import "server-only";
import type { Actor } from "@/lib/context";
import type { Database } from "@/lib/db";
import { ForbiddenError, InsufficientScopeError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import { findUserById, findUserByUsername, type UserRow } from "@/lib/users/users";
import { numericReference } from "./param-types";

/** The user a request asks to act as: its `sudo` parameter, else its `Sudo` header (GitLab's `sudo_identifier`). */
export function sudoIdentifier(request: Request, url: URL): string | null {
  return url.searchParams.get("sudo") ?? request.headers.get("sudo");
}

/**
 * GitLab's `sudo!`: an administrator's personal access token or OAuth token with the `sudo` scope acts as the user
 * named by id or username, with that user's rights only. Checked in GitLab's order, with its answers: nobody signed
 * in, 401; not an administrator, 403; a browser session, 403; a token without the scope, GitLab's insufficient scope;
 * nobody of that id or name, 404. As GitLab skips the endpoint's scope check under sudo, the sudo'd actor carries no
 * token scopes (the user's full rights); the token itself stays the request's (`personal_access_tokens/self`).
 */
export async function actAsSudoUser(db: Database, actor: Actor, identifier: string): Promise<Actor> {
  if (actor.kind !== "user") throw new UnauthorizedError();
  if (!actor.user.isAdmin) throw new ForbiddenError("Must be admin to use sudo");
  if (actor.scopes === null) throw new ForbiddenError("Must be authenticated using an OAuth or personal access token to use sudo");
  if (!actor.scopes.has("sudo")) throw new InsufficientScopeError(["sudo"]);
  const user = await findUserByIdOrUsername(db, identifier);
  if (!user) throw new NotFoundError(`User with ID or username '${identifier}'`);
  return {
    kind: "user",
    user,
    scopes: null,
    ...(actor.personalAccessTokenId === undefined ? {} : { personalAccessTokenId: actor.personalAccessTokenId }),
    ...(actor.oauthTokenResource === undefined ? {} : { oauthTokenResource: actor.oauthTokenResource }),
  };
}

/** GitLab's `UserFinder#find_by_id_or_username`: all digits is an id, anything else a username in any case. */
async function findUserByIdOrUsername(db: Database, identifier: string): Promise<UserRow | undefined> {
  // No id or username holds a NUL, which PostgreSQL text cannot even compare.
  if (identifier.includes("\u0000")) return undefined;
  const id = numericReference(identifier);
  return id === null ? findUserByUsername(db, identifier) : findUserById(db, id);
}
