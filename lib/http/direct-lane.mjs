// Direct dispatch in the production server (server.mjs): requests for the machine-facing route handlers (the JSON
// API, the OAuth endpoints, the alert receiver) are answered by calling the handler straight away, without the
// framework's per-request routing, which costs more CPU than most of these handlers' own work. Everything else (pages,
// server actions, anything a handler does not declare it can take) stays with the framework, and `next dev` never
// comes here. Plain JavaScript: it runs outside the framework's bundles.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { directBodyKey, directDispatchKey, hungUpKey, peerAddressHeader, startedKey } from "./lane-keys.mjs";
import { matchRoute, routeTable } from "./route-table.mjs";

// A route handler is taken only when it carries the mark `directDispatchKey` (lib/http/direct-dispatch.ts sets it):
// its value is the handler's core, which answers with an `Answer` (lib/http/answer.ts: status, headers, body as text)
// written out here as it is. A marked handler reads nothing from the framework's request scope, except through a
// session cookie, and requests with cookies are never taken here.
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
  /** Route file → the cores of its marked handlers by method; loaded on first use, as the framework loads them. */
  const handlersByFile = new Map();

  function markedHandler(file, method) {
    let handlers = handlersByFile.get(file);
    if (!handlers) {
      // The framework requires the same file for its own routing, so both share one copy of the application's modules.
      const userland = require(path.join(serverDir, file)).routeModule?.userland ?? {};
      handlers = new Map();
      for (const [name, handler] of Object.entries(userland)) {
        if (typeof handler === "function" && typeof handler[directDispatchKey] === "function") handlers.set(name, handler[directDispatchKey]);
      }
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
    try {
      // Not the Host header: a client's `Host: x/?a=1` would otherwise rewrite the path and query the handler reads.
      // Handlers build absolute URLs from EXTERNAL_URL, never from the request. Neither an abort signal nor a web body
      // stream is given: following a signal or building a stream costs more than building the request, and the body is
      // read from the socket instead, by lib/http/body.ts (the only reader of bodies) through `directBodyKey`.
      webRequest = new Request(`http://localhost${request.url}`, { method: request.method, headers: headerPairs(request) });
    } catch {
      // A header the web Request refuses: the framework gives its own answer.
      return false;
    }
    const body = methodsWithoutBody.has(request.method) ? null : socketBody(request, () => (webRequest[hungUpKey] = true));
    if (body) webRequest[directBodyKey] = body;
    void answer(handler, webRequest, route.params, { request, response, body, commonHeaders });
    return true;
  };
}

async function answer(handler, webRequest, params, { request, response, body, commonHeaders }) {
  try {
    const answered = await handler(webRequest, { params: Promise.resolve(params) });
    for (const { key, value } of commonHeaders) response.setHeader(key, value);
    // A body the handler left unread (it was too large) flows on, discarded, so the sender can go on sending while
    // it reads the answer, as the framework lets it.
    if (body && !request.readableEnded) body.abandon();
    if (answered.body !== null) response.setHeader("content-length", Buffer.byteLength(answered.body));
    response.writeHead(answered.status, answered.headers);
    response.end(request.method === "HEAD" || answered.body === null ? undefined : answered.body);
  } catch (error) {
    // The handlers render their own errors; reaching this is a bug, answered as the framework answers one.
    console.error("route handler failed outside its error handling:", error);
    if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
    response.end("Internal Server Error");
  }
}

/**
 * The request's headers as the client sent them, except that the peer address header is the socket's: a client's own
 * would choose the address the per-address throttles count it under.
 */
function headerPairs(request) {
  const { rawHeaders } = request;
  const pairs = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() !== peerAddressHeader) pairs.push([rawHeaders[index], rawHeaders[index + 1]]);
  }
  pairs.push([peerAddressHeader, request.socket.remoteAddress ?? ""]);
  return pairs;
}

/**
 * The request body for `readBodyBytes` (lib/http/body.ts): `read(limit)` gives it whole, or null as soon as it passes
 * `limit` bytes, the rest then flowing on unread; `abandon()` lets an unread body flow on the same way. A sender that
 * hangs up mid-body makes the read fail, after `hungUp` is called.
 */
function socketBody(request, hungUp) {
  let reading = null;
  const discardRest = () => {
    // Late errors of a discarded body (the sender hanging up) are nobody's to handle.
    request.on("error", () => {});
    request.resume();
  };
  return {
    read(limit) {
      if (reading) return Promise.reject(new TypeError("The request body has already been read."));
      reading = new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        const listeners = {
          data: (chunk) => {
            size += chunk.byteLength;
            if (size > limit) {
              stopListening();
              discardRest();
              resolve(null);
            } else {
              chunks.push(chunk);
            }
          },
          end: () => {
            stopListening();
            resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
          },
          error: () => failed(),
          close: () => {
            if (!request.complete) failed();
          },
        };
        const stopListening = () => {
          for (const [event, listener] of Object.entries(listeners)) request.off(event, listener);
        };
        const failed = () => {
          stopListening();
          discardRest();
          hungUp();
          reject(new Error("the client closed the connection before its body arrived"));
        };
        if (request.readableEnded) return resolve(Buffer.alloc(0));
        for (const [event, listener] of Object.entries(listeners)) request.on(event, listener);
      });
      return reading;
    },
    abandon() {
      if (!reading) discardRest();
    },
  };
}
