import "server-only";
import { randomUUID } from "node:crypto";
import { getSessionUser } from "@/lib/auth/session";
import { createContext, type Actor, type Ctx } from "@/lib/context";
import { getDatabase, type Database } from "@/lib/db";
import { GroupMovedError, NotFoundError, ProjectMovedError, UnauthorizedError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { feedReader } from "@/lib/users/feed-tokens";
import { atomContentType, renderAtom, type AtomFeed } from "./atom";
import { feedFiltersFrom, type FeedFilters } from "./describe";
import { absoluteUrl } from "./feeds";

/**
 * Who reads: with a `feed_token` parameter, its owner (anonymous when it is unknown, as GitLab has it, so a private
 * resource then answers 404); without one, the browser's session, so the pages' “Subscribe” links open in the browser.
 */
async function reader(db: Database, url: URL): Promise<Actor> {
  const token = url.searchParams.get("feed_token");
  if (token !== null) return feedReader(db, token);
  const user = await getSessionUser();
  return user ? { kind: "user", user, scopes: new Set(["read_api"]) } : { kind: "anonymous" };
}

function plainText(status: number, text: string): Response {
  return new Response(`${text}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/**
 * Serves an Atom feed: the reader's context in, the feed's XML out. Unknown users and projects, and projects the reader
 * may not see, answer 404; a feed that needs a reader answers 401 to nobody. A project's or group's feed read by a path
 * it had before a rename or a move redirects to its feed at the new path (`movedFeed`). The request's URL (with its
 * token) is never logged.
 */
export function feedRoute<P>(
  build: (ctx: Ctx, filters: FeedFilters, params: P) => Promise<AtomFeed>,
  { movedFeed }: { movedFeed?: (fullPath: string) => string } = {},
) {
  return async (request: Request, { params }: { params: Promise<P> }): Promise<Response> => {
    const url = new URL(request.url);
    try {
      const db = await getDatabase();
      const ctx = createContext(db, await reader(db, url));
      const feed = await build(ctx, feedFiltersFrom(url.searchParams), await params);
      // Private: the feed depends on who reads it, so no shared cache may keep it.
      return new Response(renderAtom(feed), { headers: { "Content-Type": atomContentType, "Cache-Control": "private, no-cache", Vary: "Cookie" } });
    } catch (error) {
      if ((error instanceof ProjectMovedError || error instanceof GroupMovedError) && movedFeed) {
        // Feed readers follow a permanent redirect and keep the new address (the feed token stays in the query).
        const location = absoluteUrl(`${movedFeed(error.fullPath)}${url.search}`);
        return new Response(null, { status: 301, headers: { Location: location, "Cache-Control": "no-store" } });
      }
      if (error instanceof NotFoundError) return plainText(404, "404 Not Found");
      if (error instanceof UnauthorizedError) return plainText(401, "401 Unauthorized: subscribe with your feed token");
      const requestId = randomUUID();
      logger.error({ err: error, requestId }, "unhandled error in an Atom feed");
      return plainText(500, `500 Internal Server Error (request id ${requestId})`);
    }
  };
}
