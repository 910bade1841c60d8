import "server-only";
import { authenticateToken } from "@/lib/api/authenticate";
import type { Scope } from "@/lib/api/scopes";
import { actingUser, createContext, type Actor, type Ctx } from "@/lib/context";
import type { Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, ProjectMovedError, UnauthorizedError } from "@/lib/errors";
import { can } from "@/lib/projects/policy";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";

export type GitOperation = "pull" | "push";

/** Token scopes that let a git client read (clone, fetch) or write (push) a repository. */
const pullScopes: readonly Scope[] = ["read_repository", "write_repository", "api"];
const pushScopes: readonly Scope[] = ["write_repository", "api"];

/** The password of an HTTP Basic `Authorization` header; git clients send the token there (any username). */
export function basicPassword(authorization: string | null): string | null {
  const encoded = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1];
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const password = colon >= 0 ? decoded.slice(colon + 1) : "";
  return password === "" ? null : password;
}

export interface GitAccess {
  view: ProjectView;
  /** Null for anonymous clones of public projects. */
  user: UserRow | null;
}

function grantedScopes(actor: Actor): ReadonlySet<string> | null {
  return actor.kind === "user" ? actor.scopes : null;
}

/**
 * The project a git URL names, by its path or by one it had before a rename: git clients keep cloning, fetching and
 * pushing by an old URL, as GitLab's `RepoPath.find_project` follows redirect routes.
 */
async function projectOrMovedProject(ctx: Ctx, reference: string): Promise<ProjectView> {
  try {
    return await getVisibleProject(ctx, reference);
  } catch (error) {
    if (error instanceof ProjectMovedError) return getVisibleProject(ctx, String(error.projectId));
    throw error;
  }
}

/**
 * Decides whether a git client may pull from or push to a project, GitLab's way: anonymous clients get 401 (so git
 * asks for credentials) unless the project is public and they only pull; a token without any repository scope is
 * refused like a wrong password; a project the user cannot see is 404; too low a role is 403. Reporters and above
 * (or anyone who can see a public or internal project) pull; Developers and above push, unless the project is archived.
 */
export async function authorizeGitAccess(
  db: Database,
  input: { projectReference: string; operation: GitOperation; authorization: string | null; now: Date },
): Promise<GitAccess> {
  const password = basicPassword(input.authorization);
  const actor = await authenticateToken(db, password === null ? null : { value: password, bearer: true }, input.now);
  const scopes = grantedScopes(actor);
  if (scopes && !pullScopes.some((scope) => scopes.has(scope))) throw new UnauthorizedError();
  if (actor.kind === "anonymous" && input.operation === "push") throw new UnauthorizedError();

  const ctx = { ...createContext(db, actor), now: input.now };
  let view: ProjectView;
  try {
    view = await projectOrMovedProject(ctx, input.projectReference);
  } catch (error) {
    if (error instanceof NotFoundError && actor.kind === "anonymous") throw new UnauthorizedError();
    throw error;
  }
  if (input.operation === "pull") {
    if (!can(view, "readCode")) {
      if (actor.kind === "anonymous") throw new UnauthorizedError();
      throw new ForbiddenError("You are not allowed to download code from this project.");
    }
  } else {
    if (scopes && !pushScopes.some((scope) => scopes.has(scope))) {
      throw new ForbiddenError("Your token does not allow pushing code (it needs write_repository or api).");
    }
    // GitLab checks this before the role, so everyone learns why.
    if (view.project.archived) throw new ForbiddenError("You are not allowed to push code to an archived project.");
    if (!can(view, "pushCode")) throw new ForbiddenError("You are not allowed to push code to this project.");
  }
  return { view, user: actingUser(ctx) };
}
