import { NextResponse, type NextRequest } from "next/server";

const userFeedPath = /^\/([^/]+)\.atom$/;

/**
 * Two kinds of paths come here (see `config.matcher`), so other requests pay nothing:
 * - A path with malformed percent-encoding (`/api/v4/projects/%E0%A4%A`) cannot be routed; without this the framework
 *   answers it with a bare 500.
 * - A user's Atom feed, `/<username>.atom`, would be taken by the user page's `[namespace]` segment: it is rewritten to
 *   its route, query (and feed token) included.
 */
export function proxy(request: NextRequest): NextResponse {
  let pathname: string;
  try {
    pathname = decodeURIComponent(request.nextUrl.pathname);
  } catch {
    const body = request.nextUrl.pathname.startsWith("/api/")
      ? { error: "path is not valid: it contains malformed percent-encoding" }
      : { message: "400 Bad request - the path contains malformed percent-encoding" };
    return NextResponse.json(body, { status: 400 });
  }
  const username = pathname.match(userFeedPath)?.[1];
  if (username) {
    const target = request.nextUrl.clone();
    target.pathname = `/-/feeds/users/${encodeURIComponent(username)}`;
    return NextResponse.rewrite(target);
  }
  return NextResponse.next();
}

export const config = { matcher: ["/(.*%.*)", "/([^/]+\\.atom)"] };
