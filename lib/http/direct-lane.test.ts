import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { directLane } from "./direct-lane.mjs";
import { startedKey } from "./lane-keys.mjs";

/** What the test server answers for a request the lane leaves to the framework. */
const leftToFramework = 599;
const globals = globalThis as Record<symbol, unknown> & { laneTestSeen?: { hungUp?: boolean; webBody?: null } };

/**
 * Route modules as `next build` compiles them: CommonJS with the handlers on `routeModule.userland`. A marked handler
 * carries its answer-returning core (lib/http/direct-dispatch.ts); the lane calls the core. The handlers themselves
 * answer 598, so a test that reaches one has gone around the core.
 */
const routeModules: Record<string, string> = {
  "/api/v4/things/[id]/route": `
    const mark = (core) => {
      const handler = async () => new Response(null, { status: 598 });
      return Object.defineProperty(handler, Symbol.for("gitlab-compatible.direct-dispatch"), { value: core });
    };
    exports.routeModule = { userland: {
      GET: mark(async (request, { params }) => {
        const { id } = await params;
        return {
          status: 200,
          headers: { "content-type": "application/json", "x-seen-url": request.url },
          body: JSON.stringify({ id, agent: request.headers.get("user-agent"), peer: request.headers.get("x-peer-address") }),
        };
      }),
      POST: mark(async (request) => {
        // Reads at most 16 bytes, as a handler with a size limit does (through lib/http/body.ts).
        const body = request[Symbol.for("gitlab-compatible.direct-body")];
        let bytes;
        try {
          bytes = await body.read(16);
        } catch {
          globalThis.laneTestSeen = { hungUp: request[Symbol.for("gitlab-compatible.sender-hung-up")] === true, webBody: request.body };
          return { status: 499, headers: {}, body: null };
        }
        if (bytes === null) return { status: 413, headers: {}, body: '{"message":"too large"}' };
        const again = await body.read(16).then(() => "read twice", (error) => error.message);
        return { status: 201, headers: {}, body: JSON.stringify({ size: bytes.byteLength, text: bytes.toString(), again, webBody: request.body }) };
      }),
      PATCH: mark(async () => ({ status: 204, headers: { "x-empty": "yes" }, body: null })),
      HEAD: mark(async () => ({ status: 200, headers: { "content-type": "text/plain" }, body: "four" })),
      DELETE: async () => new Response(null, { status: 204 }),
    } };`,
};

describe("the production server's direct lane", () => {
  let distDir: string;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    distDir = mkdtempSync(path.join(tmpdir(), "direct-lane-"));
    const manifest: Record<string, string> = { "/things/page": "app/things/page.js" };
    for (const [entry, source] of Object.entries(routeModules)) {
      const file = `app${entry}.js`;
      manifest[entry] = file;
      mkdirSync(path.dirname(path.join(distDir, "server", file)), { recursive: true });
      writeFileSync(path.join(distDir, "server", file), source);
    }
    writeFileSync(path.join(distDir, "server", "app-paths-manifest.json"), JSON.stringify(manifest));
    const lane = directLane({ distDir, commonHeaders: [{ key: "X-Frame-Options", value: "DENY" }] });
    server = createServer((request, response) => {
      if (!lane(request, response)) response.writeHead(leftToFramework).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    delete globals[startedKey];
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(distDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    globals[startedKey] = true;
    delete globals.laneTestSeen;
  });

  it("leaves everything to the framework until the application has started", async () => {
    delete globals[startedKey];
    expect((await fetch(`${base}/api/v4/things/1`)).status).toBe(leftToFramework);
  });

  it("calls a marked handler's core with the decoded parameters and the request, and writes its answer with the common headers", async () => {
    const response = await fetch(`${base}/api/v4/things/a%2Fb?x=1`, { headers: { "User-Agent": "lane-test" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "a/b", agent: "lane-test", peer: "127.0.0.1" });
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength('{"id":"a/b","agent":"lane-test","peer":"127.0.0.1"}')));
    expect(response.headers.get("x-seen-url")).toBe("http://localhost/api/v4/things/a%2Fb?x=1");
  });

  it("writes an answer without a body with neither a body nor a length, and a HEAD answer without its body", async () => {
    const empty = await rawRequest(base, "/api/v4/things/1", { method: "PATCH" });
    expect(empty).toEqual({ status: 204, headers: expect.objectContaining({ "x-empty": "yes", "x-frame-options": "DENY" }), body: "" });
    expect(empty.headers["content-length"]).toBeUndefined();
    const head = await rawRequest(base, "/api/v4/things/1", { method: "HEAD" });
    expect(head).toEqual({ status: 200, headers: expect.objectContaining({ "content-length": "4", "content-type": "text/plain" }), body: "" });
  });

  it("reads the path and query from the request line, never from a Host header that would rewrite them", async () => {
    const response = await rawRequest(base, "/api/v4/things/7?x=1", { headers: { Host: "evil.example/?x=2#" } });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ id: "7", agent: null, peer: "127.0.0.1" });
    expect(response.headers["x-seen-url"]).toBe("http://localhost/api/v4/things/7?x=1");
  });

  it("tells the handler the socket's peer address, whatever address a client claims in the same header", async () => {
    const claimed = await rawRequest(base, "/api/v4/things/7", { headers: { "X-Peer-Address": "203.0.113.9", "x-peer-address": "198.51.100.4" } });
    expect(JSON.parse(claimed.body)).toEqual({ id: "7", agent: null, peer: "127.0.0.1" });
  });

  it("leaves to the framework: unmarked handlers, methods the route does not export, pages, unknown paths and requests with cookies", async () => {
    expect((await fetch(`${base}/api/v4/things/1`, { method: "DELETE" })).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/things/1`, { method: "PUT" })).status).toBe(leftToFramework);
    expect((await fetch(`${base}/things`)).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/nothing/1/2`)).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/things/1`, { headers: { Cookie: "next-auth.session-token=x" } })).status).toBe(leftToFramework);
  });

  it("gives the handler the body read from the socket, once, in place of a web body stream", async () => {
    const response = await fetch(`${base}/api/v4/things/1`, { method: "POST", body: "0123456789" });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ size: 10, text: "0123456789", again: "The request body has already been read.", webBody: null });
    expect(response.headers.get("connection")).toBe("keep-alive");
  });

  it("answers a body the handler gave up on while the rest flows on unread", async () => {
    const body256k = "x".repeat(256 * 1024);
    const { status, headers, body } = await rawRequest(base, "/api/v4/things/1", { method: "POST", headers: { "Content-Length": body256k.length } }, body256k);
    expect(status).toBe(413);
    expect(body).toBe('{"message":"too large"}');
    expect(headers.connection).toBe("keep-alive");
  });

  it("marks the request the handler sees, and fails its body, when the sender hangs up mid-body", async () => {
    const request = httpRequest(`${base}/api/v4/things/1`, { method: "POST", headers: { "Content-Length": "1000" } });
    request.on("error", () => {});
    request.write("0123");
    await new Promise((resolve) => setTimeout(resolve, 100));
    request.destroy();
    await expect.poll(() => globals.laneTestSeen).toEqual({ hungUp: true, webBody: null });
  });
});

/** A request as `node:http` sends it: any Host header, any body, and the answer exactly as it came. */
function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string | number> },
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, options, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}
