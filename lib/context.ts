import "server-only";
import { getDatabase, type Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";

export type Actor =
  | { kind: "anonymous" }
  | {
      kind: "user";
      user: UserRow;
      /**
       * Scopes of the token the request came with; null for a browser session, which has the user's full rights, and
       * for a request an administrator's `sudo` token makes as this user (GitLab checks no endpoint scope under sudo).
       */
      scopes: ReadonlySet<string> | null;
      /** The personal access token the request came with, if it came with one (not an OAuth token or a session). */
      personalAccessTokenId?: number;
      /**
       * For a request with an OAuth access token: the resource server the token was issued for (RFC 8707 resource
       * indicator, an absolute URI, e.g. `https://host/api/v4/mcp`), or null when the client named none. Absent for
       * personal access tokens and sessions. A resource server refuses tokens bound to another resource.
       */
      oauthTokenResource?: string | null;
    }
  | { kind: "system"; job: string };

/** What every domain verb receives: who is acting, the database to act on, and one clock for the whole operation. */
export interface Ctx {
  db: Database;
  actor: Actor;
  now: Date;
}

export function createContext(db: Database, actor: Actor): Ctx {
  return { db, actor, now: new Date() };
}

export function actingUser(ctx: Ctx): UserRow | null {
  return ctx.actor.kind === "user" ? ctx.actor.user : null;
}

/** A context for work that acts for nobody in particular (public resources). */
export async function anonymousContext(): Promise<Ctx> {
  return createContext(await getDatabase(), { kind: "anonymous" });
}
