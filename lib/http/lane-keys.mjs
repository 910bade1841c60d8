// The names the production server (server.mjs), its direct lane (direct-lane.mjs) and the application's bundles
// (direct-dispatch.ts, instrumentation.ts, client-address.ts) share. Those that meet on objects and on globalThis are
// registered symbols: every bundle that holds a copy of this module holds the same symbols.

/** On a route handler: its Answer-returning core, which the lane calls itself. */
export const directDispatchKey = Symbol.for("gitlab-compatible.direct-dispatch");
/** On a request the lane built: its body, read from the socket (`DirectBody`). */
export const directBodyKey = Symbol.for("gitlab-compatible.direct-body");
/** On a request the lane built: true once its sender hung up before the whole body arrived. */
export const hungUpKey = Symbol.for("gitlab-compatible.sender-hung-up");
/** On globalThis: the production server's count of requests under way (lib/http/request-load.mjs). */
export const requestLoadKey = Symbol.for("gitlab-compatible.request-load");
/** On globalThis: true once the application has started (migrations applied); until then the framework answers. */
export const startedKey = Symbol.for("gitlab-compatible.started");
/**
 * On globalThis, once the application has started: the function that stops its background work and closes the
 * database, which the production server calls on its way out, after the last request it takes was answered.
 */
export const stopServiceKey = Symbol.for("gitlab-compatible.stop-service");
/**
 * The request header in which both lanes of the production server pass on the socket's peer address, replacing
 * whatever a client sent under that name (lib/http/client-address.ts reads it for the per-address throttles).
 */
export const peerAddressHeader = "x-peer-address";
/**
 * The request header that marks a request as one that came through the operator socket (`<DATA_DIR>/operator.sock`,
 * which only the account running the server can open): its value is the process's own random secret, held in
 * `process.env[operatorSecretVariable]`. The TCP server drops whatever a client sends under this name.
 */
export const operatorSocketHeader = "x-operator-socket";
export const operatorSecretVariable = "OPERATOR_SOCKET_SECRET";
/** The operator socket's file name in DATA_DIR. */
export const operatorSocketFile = "operator.sock";
