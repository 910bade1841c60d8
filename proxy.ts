import { NextResponse, type NextRequest } from "next/server";
import { getDatabase } from "@/lib/db";
import { untrustworthyAuthorizationRequest } from "@/lib/oauth/authorize";
import { collectParams } from "@/lib/oauth/http";

const userFeedPath = /^\/([^/]+)\.atom$/;

/**
 * Three kinds of paths come here (see `config.matcher`), so other requests pay nothing:
 * - A path with malformed percent-encoding (`/api/v4/projects/%E0%A4%A`) cannot be routed; without this the framework
 *   answers it with a bare 500.
 * - A user's Atom feed, `/<username>.atom`, would be taken by the user page's `[namespace]` segment: it is rewritten to
 *   its route, query (and feed token) included.
 * - `GET /oauth/authorize` for an unknown client or an unregistered redirect URI must answer an HTML page with status
 *   400 and no redirect. A route handler cannot render the site's layout and a page cannot answer 400, so such a
 *   request is rewritten here, with status 400, to the consent page, which explains the same problem in the layout.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(request.nextUrl.pathname);
  } catch {
    const body = request.nextUrl.pathname.startsWith("/api/")
      ? { error: "path is not valid: it contains malformed percent-encoding" }
      : { message: "400 Bad request - the path contains malformed percent-encoding" };
    return NextResponse.json(body, { status: 400 });
  }
  if (pathname === "/oauth/authorize" && request.method === "GET") {
    const problem = await untrustworthyAuthorizationRequest(await getDatabase(), collectParams(request.nextUrl.searchParams));
    if (!problem) return NextResponse.next();
    const target = request.nextUrl.clone();
    target.pathname = "/oauth/authorize/consent";
    return NextResponse.rewrite(target, { status: 400, headers: { "Cache-Control": "no-store" } });
  }
  const username = pathname.match(userFeedPath)?.[1];
  if (username) {
    const target = request.nextUrl.clone();
    target.pathname = `/-/feeds/users/${encodeURIComponent(username)}`;
    return NextResponse.rewrite(target);
  }
  return NextResponse.next();
}

export const config = { matcher: ["/(.*%.*)", "/([^/]+\\.atom)", "/oauth/authorize"] };
