/**
 * The mark the production server's direct lane (lib/http/direct-lane.mjs) looks for on a route handler before it
 * calls the handler itself, without the framework's routing. A marked handler reads nothing from the framework's
 * request scope (`cookies()`, `headers()`, `after()`), except through a session cookie, and the lane leaves every
 * request that carries cookies to the framework. The protocol wrappers (`apiRoute`, `oauthEndpoint`,
 * `receiverRoute`) mark what they build; so the lane serves exactly the machine-facing routes, with no list of paths.
 */
const directDispatchKey = Symbol.for("gitlab-compatible.direct-dispatch");

export function directlyDispatchable<Handler extends (...args: never[]) => unknown>(handler: Handler): Handler {
  Object.defineProperty(handler, directDispatchKey, { value: true });
  return handler;
}
