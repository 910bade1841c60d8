import "server-only";
import { randomUUID } from "node:crypto";
import { getSessionUser } from "@/lib/auth/session";
import { createContext, type Actor, type Ctx } from "@/lib/context";
import { getDatabase, type Database } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError, InsufficientScopeError, ProjectMovedError, RouteNotFoundError, UnauthorizedError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { clientAddress } from "@/lib/http/client-address";
import { SenderHungUp } from "@/lib/http/body";
import type { Answer } from "@/lib/http/answer";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { observeRequest } from "@/lib/metrics";
import { getRateLimits, RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { json } from "./respond";
import { authenticateToken, findPresentedToken } from "./authenticate";
import { actAsSudoUser, sudoIdentifier } from "./sudo";
import type { Scope } from "./scopes";

export interface ApiRouteOptions {
  /** The route pattern, used for metrics and logs (`/projects/:id`). */
  route: string;
  /** A token must carry at least one of these (an empty list: any token will do). */
  scopes: readonly Scope[];
  /** Anonymous callers may use the endpoint (they still get 401 for a token we do not know). */
  allowAnonymous?: boolean;
}

export interface ApiCall {
  ctx: Ctx;
  request: Request;
  url: URL;
  params: Record<string, string>;
  /**
   * The route's scope check, when it waits for the body: a token with the `sudo` scope may name its user in the body,
   * and GitLab checks no endpoint scope under sudo. The handler calls it with its caller once the body is read; for
   * every other request it has been made already and does nothing.
   */
  checkScopes(ctx: Ctx): void;
}

export type NextRouteContext = { params: Promise<Record<string, string | string[]>> };

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** The id a request is logged under: the proxy's `X-Request-Id` when it is a sane one, else a new one. */
export function requestIdOf(request: Request): string {
  const incomingId = request.headers.get("x-request-id");
  return incomingId && requestIdPattern.test(incomingId) ? incomingId : randomUUID();
}

/**
 * Wraps a `/api/v4` route: authenticates the token, enforces scopes, runs the handler, renders typed errors as
 * GitLab bodies, and records the request in logs and metrics. The only place API errors become answers.
 */
export function apiRoute(options: ApiRouteOptions, handle: (call: ApiCall) => Promise<Answer>) {
  return directlyDispatchable(async (request: Request, routeContext: NextRouteContext): Promise<Answer> => {
    const startedAt = performance.now();
    const requestId = requestIdOf(request);
    const url = new URL(request.url);
    let answer: Answer;
    try {
      const db = await getDatabase();
      const now = new Date();
      const actor = await throttledActor(request, url, db, now);
      if (actor.kind === "anonymous" && !options.allowAnonymous) throw new UnauthorizedError();
      const checkScopes = (ctx: Ctx) => requireScopes(ctx.actor, options.scopes);
      const bodyMayNameSudo = request.method !== "GET" && request.method !== "HEAD" && actor.kind === "user" && actor.scopes?.has("sudo") === true;
      if (!bodyMayNameSudo) requireScopes(actor, options.scopes);
      const params = flattenParams(await routeContext.params);
      answer = await handle({ ctx: { ...createContext(db, actor), now }, request, url, params, checkScopes: bodyMayNameSudo ? checkScopes : () => {} });
    } catch (error) {
      answer = error instanceof ProjectMovedError ? movedProjectAnswer(request, url, options.route, error) : renderError(error, requestId, options.route);
    }
    answer.headers["X-Request-Id"] = requestId;
    observeRequest(request.method, options.route, answer.status, startedAt);
    logger.info(
      {
        requestId,
        method: request.method,
        route: options.route,
        status: answer.status,
        durationMs: Math.round(performance.now() - startedAt),
      },
      "api request",
    );
    return answer;
  });
}

/** A token must carry one of the endpoint's scopes (an empty list: any will do, as for the catch-all 404). */
function requireScopes(actor: Actor, scopes: readonly Scope[]): void {
  if (actor.kind === "user" && actor.scopes && scopes.length > 0 && !scopes.some((scope) => actor.scopes?.has(scope))) {
    throw new InsufficientScopeError(scopes);
  }
}

/**
 * Who is calling, counted against GitLab's API throttles: authenticated requests per user, the others (anonymous, or
 * with credentials that fail) per client address. Only the REST API's reads also take our pages' session cookie
 * (`sessions`); the MCP server takes tokens alone. An administrator's token with the `sudo` scope acts as the user
 * its `sudo` parameter or `Sudo` header names (`actAsSudoUser`).
 */
export async function throttledActor(request: Request, url: URL, db: Database, now: Date, { sessions = true } = {}): Promise<Actor> {
  const limits = await getRateLimits();
  const presented = findPresentedToken(request, url);
  let actor: Actor;
  try {
    actor = presented ? await authenticateToken(db, presented, now) : sessions ? await sessionActor(request) : { kind: "anonymous" };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await limits.consume("unauthenticatedApiPerAddress", clientAddress(request.headers));
    throw error;
  }
  if (actor.kind === "user") await limits.consume("authenticatedApiPerUser", String(actor.user.id));
  else await limits.consume("unauthenticatedApiPerAddress", clientAddress(request.headers));
  // Counted against the credential's own user above, as GitLab's throttles count the token's owner.
  const sudo = sudoIdentifier(request, url);
  return sudo === null ? actor : actAsSudoUser(db, actor, sudo);
}

/** next-auth's session cookie (`__Secure-` prefixed on https). */
const sessionCookiePattern = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;

/**
 * Our own pages call the API from the browser with the session cookie. Only reads (GET/HEAD) accept it, so another
 * site cannot make a signed-in browser change anything (CSRF); requests with a token never look at the session.
 * getSessionUser applies every check a page does (blocked account, ended sessions, unconfirmed address).
 */
async function sessionActor(request: Request): Promise<Actor> {
  if (request.method !== "GET" && request.method !== "HEAD") return { kind: "anonymous" };
  if (!sessionCookiePattern.test(request.headers.get("cookie") ?? "")) return { kind: "anonymous" };
  const user = await getSessionUser();
  return user ? { kind: "user", user, scopes: null } : { kind: "anonymous" };
}

function flattenParams(params: Record<string, string | string[]> | undefined): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) flat[name] = Array.isArray(value) ? value.join("/") : value;
  return flat;
}

export function renderError(error: unknown, requestId: string, route: string): Answer {
  if (error instanceof ApiError) return json(error.body(), error.status, error.headers());
  // Rack::Attack's answer, in the API's JSON shape.
  if (error instanceof RateLimitExceeded) return json({ message: "Retry later" }, 429, error.headers());
  if (error instanceof SenderHungUp) {
    logger.info({ requestId, route }, error.message);
    return json({ message: "499 Client Closed Request" }, error.status);
  }
  // Internal detail goes to the log with the request id; the client gets only the id to quote.
  logger.error({ err: error, requestId, route }, "unhandled error in API route");
  return json({ message: "500 Internal Server Error", request_id: requestId }, 500);
}

/**
 * A project named in the path (`/projects/:id/…`) by a path it had before a rename: GitLab answers a GET with a
 * permanent redirect to the same URL with the project's id in place of the old path (query included), and any other
 * method with 405, so a client never changes a project it did not name by its current path. A moved project met
 * anywhere else is the 404 it is.
 */
function movedProjectAnswer(request: Request, url: URL, route: string, moved: ProjectMovedError): Answer {
  // The URL path is `/api/v4/projects/<old path, encoded>/…`, the route `/projects/:id/…`.
  const pathSegments = url.pathname.split("/");
  const namesProject = route.startsWith("/projects/:id") && pathSegments.slice(1, 4).join("/") === "api/v4/projects";
  if (!namesProject) return json(moved.body(), moved.status);
  if (request.method !== "GET") return json({ message: "Non GET methods are not allowed for moved projects" }, 405);
  pathSegments[4] = String(moved.projectId);
  const location = `${env.EXTERNAL_URL}${pathSegments.join("/")}${url.search}`;
  return {
    status: 301,
    headers: { Location: location, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    body: `This resource has been moved permanently to ${location}`,
  };
}

/**
 * GitLab's JSON 404 `{"error":"404 Not Found"}` for a path, or a method on a path, that no endpoint serves. The
 * catch-all route answers with it, and each route file exports it for the methods it does not implement (the
 * framework would otherwise answer 405 with an empty body).
 */
export const routeNotFound = apiRoute({ route: "/*", scopes: [], allowAnonymous: true }, async () => {
  throw new RouteNotFoundError();
});
