// The names the production server's direct lane (direct-lane.mjs, loaded by server.mjs) and the application's bundles
// (direct-dispatch.ts, instrumentation.ts) share. They meet on objects and on globalThis, so each is a registered
// symbol: every bundle that holds a copy of this module holds the same symbols.

/** On a route handler: its Answer-returning core, which the lane calls itself. */
export const directDispatchKey = Symbol.for("gitlab-compatible.direct-dispatch");
/** On a request the lane built: its body, read from the socket (`DirectBody`). */
export const directBodyKey = Symbol.for("gitlab-compatible.direct-body");
/** On a request the lane built: true once its sender hung up before the whole body arrived. */
export const hungUpKey = Symbol.for("gitlab-compatible.sender-hung-up");
/** On globalThis: true once the application has started (migrations applied); until then the framework answers. */
export const startedKey = Symbol.for("gitlab-compatible.started");
