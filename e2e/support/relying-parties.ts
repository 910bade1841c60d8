import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A web server of the test's own on a loopback port, as a client application (a relying party) runs one. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** What the server's handler threw, so a test can say why a page failed instead of just seeing a 500. */
  failures: unknown[];
  close: () => Promise<void>;
}

/** Serves `handle` on 127.0.0.1 on a port the system picks; a handler that throws answers 500 and is recorded. */
export async function listenOnLoopback(handle: (request: IncomingMessage, response: ServerResponse, origin: string) => Promise<void> | void): Promise<LoopbackServer> {
  const failures: unknown[] = [];
  let origin = "";
  const listener: RequestListener = (request, response) => {
    Promise.resolve()
      .then(() => handle(request, response, origin))
      .catch((error: unknown) => {
        failures.push(error);
        if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        response.end(`relying party failed: ${String(error)}`);
      });
  };
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Serves a fetch-style handler (web `Request` in, `Response` out), the way Auth.js (`@auth/core`'s `Auth`) is mounted
 * by every framework integration: the request as the browser sent it, the answer with each of its cookies.
 */
export function serveFetchHandler(handler: (request: Request) => Promise<Response>): Promise<LoopbackServer> {
  return listenOnLoopback(async (incoming, outgoing, origin) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) for (const item of [value ?? []].flat()) headers.append(name, item);
    const method = incoming.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : new Uint8Array(await readBody(incoming));
    const response = await handler(new Request(new URL(incoming.url ?? "/", origin), { method, headers, body }));
    const answerHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") answerHeaders[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) answerHeaders["set-cookie"] = cookies;
    outgoing.writeHead(response.status, answerHeaders);
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
}

/** What a Next.js API route (`pages/api/…`) receives: the request with its query, cookies and parsed body. */
export interface ApiRouteRequest extends IncomingMessage {
  query: Record<string, string | string[]>;
  cookies: Record<string, string>;
  body: unknown;
}

/** And what it answers with: Node's response plus Next.js's `status`, `json` and `send`. */
export interface ApiRouteResponse extends ServerResponse {
  status(code: number): ApiRouteResponse;
  json(body: unknown): void;
  send(body: unknown): void;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? "").split(";")) {
    const separator = pair.indexOf("=");
    if (separator <= 0) continue;
    const name = pair.slice(0, separator).trim();
    if (!(name in cookies)) cookies[name] = decodeURIComponent(pair.slice(separator + 1).trim());
  }
  return cookies;
}

/**
 * Serves a catch-all Next.js API route (`pages/api/auth/[...nextauth].js`, where next-auth v4's documentation mounts
 * `NextAuth(options)`) under `prefix`: the request and response carry what Next.js's API routes give a handler —
 * `req.query` with the catch-all segments under `param`, `req.cookies`, `req.body` parsed by content type, and
 * `res.status`, `res.json`, `res.send`.
 */
export function serveApiRoute(
  prefix: string,
  param: string,
  handler: (request: ApiRouteRequest, response: ApiRouteResponse) => Promise<unknown>,
): Promise<LoopbackServer> {
  return listenOnLoopback(async (incoming, outgoing, origin) => {
    const url = new URL(incoming.url ?? "/", origin);
    if (!url.pathname.startsWith(`${prefix}/`)) {
      outgoing.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Not found");
      return;
    }
    const request = incoming as ApiRouteRequest;
    request.query = { ...Object.fromEntries(url.searchParams), [param]: url.pathname.slice(prefix.length + 1).split("/").map(decodeURIComponent) };
    request.cookies = parseCookies(incoming.headers.cookie);
    const text = (await readBody(incoming)).toString("utf8");
    const contentType = incoming.headers["content-type"] ?? "";
    request.body = contentType.includes("application/json") ? JSON.parse(text || "null") : contentType.includes("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(text)) : text;
    const response = outgoing as ApiRouteResponse;
    response.status = (code) => {
      response.statusCode = code;
      return response;
    };
    response.json = (body) => {
      response.setHeader("Content-Type", "application/json; charset=utf-8");
      response.end(JSON.stringify(body));
    };
    response.send = (body) => {
      if (body !== null && typeof body === "object" && !Buffer.isBuffer(body)) return response.json(body);
      if (typeof body === "string" && !response.hasHeader("Content-Type")) response.setHeader("Content-Type", "text/html; charset=utf-8");
      response.end(body ?? "");
    };
    await handler(request, response);
  });
}
