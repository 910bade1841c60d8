// Direct dispatch in the production server (server.mjs): requests for the machine-facing route handlers (the JSON
// API, the OAuth endpoints, the alert receiver) are answered by calling the handler straight away, without the
// framework's per-request routing, which costs more CPU than most of these handlers' own work. Everything else (pages,
// server actions, anything a handler does not declare it can take) stays with the framework, and `next dev` never
// comes here. Plain JavaScript: it runs outside the framework's bundles.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { matchRoute, routeTable } from "./route-table.mjs";

/**
 * The mark a route handler carries when it may be called this way (lib/http/direct-dispatch.ts sets it): it reads
 * nothing from the framework's request scope, except through a session cookie, and requests with cookies are never
 * taken here.
 */
const directDispatchKey = Symbol.for("gitlab-compatible.direct-dispatch");
/** Set by instrumentation.ts once the application has started (migrations applied); until then the framework answers. */
const startedKey = Symbol.for("gitlab-compatible.started");
const methodsWithoutBody = new Set(["GET", "HEAD"]);

/**
 * `(request, response) => boolean`: answers the request and returns true when a marked route handler serves its
 * method and path; returns false, having touched nothing, otherwise. `commonHeaders` are the headers
 * next.config.mjs adds to every answer of the framework.
 */
export function directLane({ distDir, commonHeaders }) {
  const require = createRequire(import.meta.url);
  const serverDir = path.join(distDir, "server");
  const table = routeTable(JSON.parse(readFileSync(path.join(serverDir, "app-paths-manifest.json"), "utf8")));
  /** Route file → its marked handlers by method; loaded on first use, as the framework loads them. */
  const handlersByFile = new Map();

  function markedHandler(file, method) {
    let handlers = handlersByFile.get(file);
    if (!handlers) {
      // The framework requires the same file for its own routing, so both share one copy of the application's modules.
      const userland = require(path.join(serverDir, file)).routeModule?.userland ?? {};
      handlers = new Map(Object.entries(userland).filter(([, handler]) => typeof handler === "function" && handler[directDispatchKey] === true));
      handlersByFile.set(file, handlers);
    }
    return handlers.get(method);
  }

  return (request, response) => {
    if (globalThis[startedKey] !== true || request.headers.cookie !== undefined || !request.url?.startsWith("/")) return false;
    const queryStart = request.url.indexOf("?");
    const route = matchRoute(table, queryStart < 0 ? request.url : request.url.slice(0, queryStart));
    const handler = route && markedHandler(route.file, request.method);
    if (!handler) return false;
    let webRequest;
    const aborted = new AbortController();
    const body = methodsWithoutBody.has(request.method) ? null : nodeBody(request, aborted);
    try {
      // Not the Host header: a client's `Host: x/?a=1` would otherwise rewrite the path and query the handler reads.
      // Handlers build absolute URLs from EXTERNAL_URL, never from the request.
      webRequest = new Request(`http://localhost${request.url}`, {
        method: request.method,
        headers: headerPairs(request.rawHeaders),
        signal: aborted.signal,
        ...(body ? { body: body.stream, duplex: "half" } : {}),
      });
    } catch {
      // A header the web Request refuses: the framework gives its own answer.
      body?.abandon();
      return false;
    }
    response.once("close", () => {
      if (!response.writableFinished) aborted.abort();
    });
    void answer(handler, webRequest, route.params, { request, response, body, commonHeaders });
    return true;
  };
}

async function answer(handler, webRequest, params, { request, response, body, commonHeaders }) {
  try {
    const answered = await handler(webRequest, { params: Promise.resolve(params) });
    const content = answered.body ? Buffer.from(await answered.arrayBuffer()) : null;
    for (const { key, value } of commonHeaders) response.setHeader(key, value);
    for (const [name, value] of answered.headers) if (name !== "set-cookie") response.setHeader(name, value);
    const cookies = answered.headers.getSetCookie();
    if (cookies.length > 0) response.setHeader("set-cookie", cookies);
    // A body the handler left unread (it was too large) flows on, discarded, so the sender can go on sending while
    // it reads the answer, as the framework lets it.
    if (body && !request.readableEnded) body.abandon();
    if (content) response.setHeader("content-length", content.byteLength);
    response.writeHead(answered.status);
    response.end(request.method === "HEAD" ? undefined : content);
  } catch (error) {
    // The handlers render their own errors; reaching this is a bug, answered as the framework answers one.
    console.error("route handler failed outside its error handling:", error);
    if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
    response.end("Internal Server Error");
  }
}

function headerPairs(rawHeaders) {
  const pairs = [];
  for (let index = 0; index < rawHeaders.length; index += 2) pairs.push([rawHeaders[index], rawHeaders[index + 1]]);
  return pairs;
}

/**
 * The request body as a web stream, and `abandon()` to let the rest flow unread (a reader that cancels does the
 * same). A sender that hangs up mid-body aborts the request.
 */
function nodeBody(request, aborted) {
  let settled = false;
  const listeners = {};
  const stopListening = () => {
    settled = true;
    for (const [event, listener] of Object.entries(listeners)) request.off(event, listener);
    // Late errors of an abandoned body (the sender hanging up) are nobody's to handle.
    request.on("error", () => {});
  };
  const stream = new ReadableStream({
    start(controller) {
      listeners.data = (chunk) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) request.pause();
      };
      listeners.end = () => {
        stopListening();
        controller.close();
      };
      const hungUp = () => {
        if (settled) return;
        stopListening();
        aborted.abort();
        controller.error(new Error("the client closed the connection before its body arrived"));
      };
      listeners.error = hungUp;
      listeners.close = () => {
        if (!request.complete) hungUp();
      };
      for (const [event, listener] of Object.entries(listeners)) request.on(event, listener);
    },
    pull() {
      request.resume();
    },
    cancel: abandon,
  });
  function abandon() {
    if (!settled) stopListening();
    request.resume();
  }
  return { stream, abandon };
}
