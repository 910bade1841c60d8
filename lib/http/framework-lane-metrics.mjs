// Counts, in `/-/metrics`, what the production server's framework lane answers and no protocol wrapper counted:
// pages, server actions, static assets, and the route handlers outside the wrappers (feeds, git, health). Labels are
// route patterns, never paths, so that their values stay as few as the application's routes whatever clients ask for.
// Plain JavaScript: server.mjs loads it outside the framework's bundles.
import { requestMetrics, wrapperScope } from "./metrics-registry.mjs";
import { matchPattern, routeTable } from "./route-table.mjs";

/** The route label of a request that matches no route of the application. */
export const unmatchedRoute = "(unmatched)";
/** The route label of every file the framework serves from its build output (scripts, styles, fonts). */
export const staticAssetsRoute = "/_next/static";
/** Appended to a page's pattern for the server actions posted to it: `/[namespace]/[project]/-/issues (action)`. */
export const actionSuffix = " (action)";

const staticAssetsPrefix = `${staticAssetsRoute}/`;
/** The framework's own paths, which no folder of app/ can take (a dynamic segment would otherwise). */
const frameworkPrefix = "/_next/";

/**
 * The route label of a request: the pattern of the page or route handler its path reaches, as the app's folders name
 * it (route groups left out), with `actionSuffix` for a server action (a POST carrying `Next-Action`).
 */
export function routeLabel(table, method, url, nextAction) {
  if (url.startsWith(staticAssetsPrefix)) return staticAssetsRoute;
  if (url.startsWith(frameworkPrefix)) return unmatchedRoute;
  const queryStart = url.indexOf("?");
  const pattern = matchPattern(table, queryStart < 0 ? url : url.slice(0, queryStart));
  if (pattern === null) return unmatchedRoute;
  if (pattern.startsWith(apiPrefix)) return apiRouteLabel(pattern);
  return method === "POST" && nextAction !== undefined ? pattern + actionSuffix : pattern;
}

const apiPrefix = "/api/v4/";

/**
 * An API route's label as the API's own wrapper writes it (`/projects/:id`, `/*` for the catch-all), for the API
 * requests that reach no wrapper (the proxy refuses a path with malformed percent-encoding itself), so that each API
 * route has one series whoever answered.
 */
function apiRouteLabel(pattern) {
  return pattern
    .slice(apiPrefix.length - 1)
    .replace(/\[\.\.\.[^\]]+\]/g, "*")
    .replace(/\[([^\]]+)\]/g, ":$1");
}

const frameworkRequestMetaKey = Symbol.for("NextInternalRequestMeta");

/**
 * The path the framework routed the request by: the proxy's rewrite of it (`/acme/platform/api/-/issues` becomes
 * `/acme%2Fplatform/api/-/issues`, `/jane.atom` becomes `/-/feeds/users/jane`), which the framework notes on the
 * request as it answers, or the path the client sent. Without the note (a framework that keeps it elsewhere) a
 * rewritten request is labelled by the pattern its own path matches, which is as bounded.
 */
function routedUrl(request) {
  const rewritten = request[frameworkRequestMetaKey]?.rewrittenPathname;
  return typeof rewritten === "string" ? rewritten : (request.url ?? "");
}

/** The status counted for a request whose client hung up before its answer was sent, as the wrappers count it. */
export const clientClosedStatus = 499;

/**
 * `(request, response, handle)`: hands the request to `handle` (the framework's request handler) and counts it in
 * `http_requests_total` and `http_request_duration_seconds`, unless a protocol wrapper marked it as counted already
 * (lib/http/metrics-registry.mjs): once its answer is sent, or, when the client hung up first, once `handle` is done
 * with it (a wrapper counts such a request only when its handler stops), as `clientClosedStatus`. Counting never
 * throws into the request.
 */
export function frameworkLaneMetrics({ manifest, metrics = requestMetrics() }) {
  const table = routeTable(manifest, { pages: true });
  const scope = wrapperScope();
  return (request, response, handle) => {
    const startedAt = performance.now();
    const mark = { observed: false };
    const count = (status, seconds) => {
      if (mark.observed) return;
      try {
        const method = request.method ?? "GET";
        const route = routeLabel(table, method, routedUrl(request), request.headers["next-action"]);
        metrics.httpRequests.inc({ method, route, status: String(status) });
        metrics.httpRequestDuration.observe({ method, route }, seconds);
      } catch (error) {
        console.error("could not count a request in the metrics:", error);
      }
    };
    const handled = scope.run(mark, handle, request, response);
    response.once("close", () => {
      const seconds = (performance.now() - startedAt) / 1000;
      if (response.writableFinished) return count(response.statusCode, seconds);
      const countClosed = () => count(clientClosedStatus, seconds);
      void Promise.resolve(handled).then(countClosed, countClosed);
    });
  };
}
