import { NextResponse, type NextRequest } from "next/server";
import { getDatabase } from "@/lib/db";
import { serveGitRequest, type GitEndpoint } from "@/lib/git/serve";
import { untrustworthyAuthorizationRequest } from "@/lib/oauth/authorize";
import { collectParams } from "@/lib/oauth/http";
import { clientAddress } from "@/lib/http/client-address";
import { reservedUsernames } from "@/lib/users/username-rules";

const userFeedPath = /^\/([^/]+)\.atom$/;
/** Git's smart-HTTP paths below a project (lib/git/serve.ts): namespace, project and endpoint. */
const gitPath = /^\/([^/]+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/** The same below a project in a subgroup (`/acme/platform/api.git/info/refs`), which no page segment can take. */
const nestedGitPath = /^\/([^/]+(?:\/[^/]+)+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/**
 * The segments that end a project's path in its URLs: what the routes under `[namespace]/[project]` take after the
 * project (`-/issues`, `activity`, `alerts/notify/…`, git's). Anything before the first of them is the project's full
 * path; with no such segment, the whole path is.
 */
const projectRouteSegments = new Set(["-", "activity", "activity.atom", "alerts", "prometheus", "info", "git-upload-pack", "git-receive-pack"]);

/**
 * These requests come here (see `config.matcher`), so other requests pay nothing:
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
 * - The pages and receivers of a project in a subgroup (`/acme/platform/api/-/issues`) are rewritten to those routes
 *   with the namespace as one encoded segment (`/acme%2Fplatform/api/-/issues`), which the routes read as the
 *   namespace's full path; a subgroup's pages (`/groups/acme/platform/-/activity`) the same way, and a group's feed
 *   (`/groups/acme/platform.atom`) to its route.
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
  const nestedRoute = groupFeedRoute(request.nextUrl.pathname) ?? nestedGroupRoute(request.nextUrl.pathname) ?? nestedProjectRoute(request.nextUrl.pathname);
  if (nestedRoute) {
    const target = request.nextUrl.clone();
    target.pathname = nestedRoute;
    return NextResponse.rewrite(target);
  }
  const username = pathname.match(userFeedPath)?.[1];
  if (username) {
    const target = request.nextUrl.clone();
    target.pathname = `/-/feeds/users/${encodeURIComponent(username)}`;
    return NextResponse.rewrite(target);
  }
  return NextResponse.next();
}

/**
 * The route path of a page or receiver of a project whose namespace is a subgroup, or null for any other path: one
 * whose project path (see `projectRouteSegments`) has fewer than three segments is routed as it is.
 */
function nestedProjectRoute(pathname: string): string | null {
  const segments = pathname.slice(1).split("/");
  // The site's own top-level pages (`/admin/users/jane/edit`): no namespace may take their names.
  if (reservedUsernames.has(segments[0]!.toLowerCase()) || segments[0] === "_next") return null;
  const routeStart = segments.findIndex((segment, index) => index >= 2 && projectRouteSegments.has(segment));
  const projectEnd = routeStart < 0 ? segments.length : routeStart;
  if (projectEnd < 3 || segments.slice(0, projectEnd).some((segment) => segment === "")) return null;
  const namespace = segments.slice(0, projectEnd - 1).join("/");
  return ["", encodeURIComponent(namespace), ...segments.slice(projectEnd - 1)].join("/");
}

const groupPagesPrefix = "/groups/";

/** `/groups/<full path>.atom`: the group's activity feed. */
function groupFeedRoute(pathname: string): string | null {
  if (!pathname.startsWith(groupPagesPrefix) || !pathname.endsWith(".atom")) return null;
  const fullPath = pathname.slice(groupPagesPrefix.length, -".atom".length);
  return fullPath === "" || fullPath.split("/").includes("-") ? null : `/-/feeds/groups/${fullPath}`;
}

/** The route path of a subgroup's page (`/groups/<full path>[/-/<page>]`), or null for a top-level group's or any other. */
function nestedGroupRoute(pathname: string): string | null {
  if (!pathname.startsWith(groupPagesPrefix)) return null;
  const segments = pathname.slice(groupPagesPrefix.length).split("/");
  const dash = segments.indexOf("-");
  const groupEnd = dash < 0 ? segments.length : dash;
  if (groupEnd < 2 || segments.slice(0, groupEnd).some((segment) => segment === "")) return null;
  return [groupPagesPrefix + encodeURIComponent(segments.slice(0, groupEnd).join("/")), ...segments.slice(groupEnd)].join("/");
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
    "/groups/(.+\\.atom)",
    "/groups/([^/]+/(?!-(?:/|$))[^/]+.*)",
    // Three segments or more, not below the top-level pages, and not a project's own route at the third.
    "/((?!api/|_next/|-/|groups/|oauth/|admin/|dashboard/|profile/|projects/|users/)[^/]+/[^/]+/(?!(?:-|activity|activity\\.atom|alerts|prometheus|info|git-upload-pack|git-receive-pack)(?:/|$))[^/]+.*)",
    { source: "/((?!api/v4/).*)", has: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }] },
  ],
};
