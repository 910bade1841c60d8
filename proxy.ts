import { NextResponse, type NextRequest } from "next/server";
import { getDatabase } from "@/lib/db";
import { serveGitRequest, type GitEndpoint } from "@/lib/git/serve";
import { untrustworthyAuthorizationRequest } from "@/lib/oauth/authorize";
import { collectParams } from "@/lib/oauth/http";
import { clientAddress } from "@/lib/http/client-address";

const userFeedPath = /^\/([^/]+)\.atom$/;
/** Git's smart-HTTP paths below a project (lib/git/serve.ts): namespace, project and endpoint. */
const gitPath = /^\/([^/]+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/** The same below a project in a subgroup (`/acme/platform/api.git/info/refs`), which no page segment can take. */
const nestedGitPath = /^\/([^/]+(?:\/[^/]+)+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/**
 * Five kinds of requests come here (see `config.matcher`), so other requests pay nothing:
 * - A path with malformed percent-encoding (`/api/v4/projects/%E0%A4%A`) cannot be routed; without this the framework
 *   answers it with a bare 500. A git path names no repository then, and the git code answers it as it answers any
 *   path that names none (401 asking for credentials, or 404 to someone signed in, as GitLab does): its segments,
 *   left encoded, name no project.
 * - A multipart POST outside the API: the framework takes any such POST to a page for a server action posted as a
 *   form, and parses its body before any of our code runs; a body that is not valid multipart made that parse throw,
 *   answered with a 500 and an error in the log. It is refused here with 400, as the API refuses one; a well-formed
 *   body (every real server action and form) goes on untouched. The API reads its own bodies (lib/api/request.ts).
 * - A user's Atom feed, `/<username>.atom`, would be taken by the user page's `[namespace]` segment: it is rewritten to
 *   its route, query (and feed token) included.
 * - Git's smart-HTTP paths of a project in a subgroup: the routes under `[namespace]/[project]` take one namespace
 *   segment, so these are served here, by the same code.
 * - `GET /oauth/authorize` for an unknown client or an unregistered redirect URI must answer an HTML page with status
 *   400 and no redirect. A route handler cannot render the site's layout and a page cannot answer 400, so such a
 *   request is rewritten here, with status 400, to the consent page, which explains the same problem in the layout.
 */
export async function proxy(request: NextRequest): Promise<Response> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(request.nextUrl.pathname);
  } catch {
    const git = gitPath.exec(request.nextUrl.pathname);
    if (git) {
      const endpoint: GitEndpoint = git[3] === "info/refs" ? "info-refs" : (git[3] as GitEndpoint);
      return serveGitRequest(request, { namespace: git[1]!, project: git[2]!, endpoint });
    }
    const body = request.nextUrl.pathname.startsWith("/api/")
      ? { error: "path is not valid: it contains malformed percent-encoding" }
      : { message: "400 Bad request - the path contains malformed percent-encoding" };
    return NextResponse.json(body, { status: 400 });
  }
  if (request.method === "POST" && !pathname.startsWith("/api/v4/") && isMultipart(request) && !(await hasReadableForm(request))) {
    return NextResponse.json({ message: "400 Bad request - the multipart form body could not be read" }, { status: 400 });
  }
  if (pathname === "/oauth/authorize" && request.method === "GET") {
    const problem = await untrustworthyAuthorizationRequest(await getDatabase(), collectParams(request.nextUrl.searchParams), clientAddress(request.headers));
    if (!problem) return NextResponse.next();
    const target = request.nextUrl.clone();
    target.pathname = "/oauth/authorize/consent";
    return NextResponse.rewrite(target, { status: 400, headers: { "Cache-Control": "no-store" } });
  }
  const nestedGit = nestedGitPath.exec(pathname);
  if (nestedGit) {
    const endpoint: GitEndpoint = nestedGit[3] === "info/refs" ? "info-refs" : (nestedGit[3] as GitEndpoint);
    return serveGitRequest(request, { namespace: nestedGit[1]!, project: nestedGit[2]!, endpoint });
  }
  const username = pathname.match(userFeedPath)?.[1];
  if (username) {
    const target = request.nextUrl.clone();
    target.pathname = `/-/feeds/users/${encodeURIComponent(username)}`;
    return NextResponse.rewrite(target);
  }
  return NextResponse.next();
}

/** The framework's own test for a server action posted as a form (lowercase, as it compares). */
function isMultipart(request: NextRequest): boolean {
  return (request.headers.get("content-type") ?? "").startsWith("multipart/form-data");
}

/** Whether the body parses as the framework will parse it; the framework gives the proxy a copy of the body. */
async function hasReadableForm(request: NextRequest): Promise<boolean> {
  try {
    await request.formData();
    return true;
  } catch {
    return false;
  }
}

export const config = {
  matcher: [
    "/(.*%.*)",
    "/([^/]+\\.atom)",
    "/oauth/authorize",
    "/(.+/.+/.+/info/refs)",
    "/(.+/.+/.+/git-upload-pack)",
    "/(.+/.+/.+/git-receive-pack)",
    { source: "/((?!api/v4/).*)", has: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }] },
  ],
};
