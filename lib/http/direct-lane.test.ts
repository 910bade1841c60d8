import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { directLane } from "./direct-lane.mjs";

/** What the test server answers for a request the lane leaves to the framework. */
const leftToFramework = 599;
const startedKey = Symbol.for("gitlab-compatible.started");
const globals = globalThis as Record<symbol, unknown> & { laneTestSeen?: { aborted?: boolean } };

/** Route modules as `next build` compiles them: CommonJS with the handlers on `routeModule.userland`. */
const routeModules: Record<string, string> = {
  "/api/v4/things/[id]/route": `
    const mark = (handler) => Object.defineProperty(handler, Symbol.for("gitlab-compatible.direct-dispatch"), { value: true });
    exports.routeModule = { userland: {
      GET: mark(async (request, { params }) => {
        const { id } = await params;
        const headers = new Headers({ "content-type": "application/json", "x-seen-url": request.url });
        headers.append("set-cookie", "a=1");
        headers.append("set-cookie", "b=2");
        return new Response(JSON.stringify({ id, agent: request.headers.get("user-agent") }), { status: 200, headers });
      }),
      POST: mark(async (request) => {
        // Reads at most 16 bytes, as a handler with a size limit does.
        const reader = request.body.getReader();
        let size = 0;
        for (;;) {
          const { done, value } = await reader.read().catch(() => { globalThis.laneTestSeen = { aborted: request.signal.aborted }; return { done: true }; });
          if (done) break;
          size += value.byteLength;
          if (size > 16) { await reader.cancel(); return new Response('{"message":"too large"}', { status: 413 }); }
        }
        return new Response(JSON.stringify({ size }), { status: 201 });
      }),
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

  it("calls a marked handler with the decoded parameters and the request, and sends its answer with the common headers", async () => {
    const response = await fetch(`${base}/api/v4/things/a%2Fb?x=1`, { headers: { "User-Agent": "lane-test" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "a/b", agent: "lane-test" });
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-seen-url")).toBe("http://localhost/api/v4/things/a%2Fb?x=1");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("reads the path and query from the request line, never from a Host header that would rewrite them", async () => {
    const response = await rawGet(base, "/api/v4/things/7?x=1", "evil.example/?x=2#");
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ id: "7", agent: null });
    expect(response.headers["x-seen-url"]).toBe("http://localhost/api/v4/things/7?x=1");
  });

  it("leaves to the framework: unmarked handlers, methods the route does not export, pages, unknown paths and requests with cookies", async () => {
    expect((await fetch(`${base}/api/v4/things/1`, { method: "DELETE" })).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/things/1`, { method: "PUT" })).status).toBe(leftToFramework);
    expect((await fetch(`${base}/things`)).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/nothing/1/2`)).status).toBe(leftToFramework);
    expect((await fetch(`${base}/api/v4/things/1`, { headers: { Cookie: "next-auth.session-token=x" } })).status).toBe(leftToFramework);
  });

  it("streams the body to the handler", async () => {
    const response = await fetch(`${base}/api/v4/things/1`, { method: "POST", body: "0123456789" });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ size: 10 });
    expect(response.headers.get("connection")).toBe("keep-alive");
  });

  it("answers a body the handler gave up on while the rest flows on unread", async () => {
    const { status, headers, body } = await rawPost(base, "x".repeat(256 * 1024));
    expect(status).toBe(413);
    expect(body).toBe('{"message":"too large"}');
    expect(headers.connection).toBe("keep-alive");
  });

  it("aborts the request the handler sees when the sender hangs up mid-body", async () => {
    const request = httpRequest(`${base}/api/v4/things/1`, { method: "POST", headers: { "Content-Length": "1000" } });
    request.on("error", () => {});
    request.write("0123");
    await new Promise((resolve) => setTimeout(resolve, 100));
    request.destroy();
    await expect.poll(() => globals.laneTestSeen).toEqual({ aborted: true });
  });
});

function rawPost(base: string, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}/api/v4/things/1`, { method: "POST", headers: { "Content-Length": Buffer.byteLength(body) } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

function rawGet(base: string, path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers: { Host: host } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on("error", reject);
    request.end();
  });
}
