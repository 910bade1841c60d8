import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import { alertIntegrations, alerts } from "@/lib/db/schema";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createIntegration, maxPayloadBytes } from "./integrations";
import { receiverRequestOf } from "./receive";
import { receiverFrontDoor } from "./receiver-front-door";
import { answerReceiverCall, receiverTargetOf } from "./receiver-route";

/** What the test server answers for a request the front door leaves to the framework. */
const leftToFramework = 599;
const key = "front-door-test-key";

describe.each(testDatabases())("the receiver's front door on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  let server: Server;
  let base: string;
  let projectPath: string;
  let integrationPath: string;
  let projectId: number;

  beforeAll(async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const { project, namespace } = await createProject(ctx, { name: `Front door ${uniqueSuffix()}` });
    const { integration } = await createIntegration(ctx, String(project.id), { name: "Monitor", type: "http", active: true });
    await handle.db.update(alertIntegrations).set({ tokenDigest: sha256Hex(key) }).where(eq(alertIntegrations.id, integration.id));
    projectId = project.id;
    projectPath = `${namespace.path}/${project.path}`;
    integrationPath = `/${projectPath}/alerts/notify/monitor/${integration.endpointIdentifier}.json`;

    const frontDoor = receiverFrontDoor(async () => handle.db);
    server = createServer((request, response) => {
      if (frontDoor(request, response, [{ key: "X-Frame-Options", value: "DENY" }])) return;
      response.writeHead(leftToFramework).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (path: string, body: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });

  /** The same request through the route handlers' door: a web Request, answered by the same verb. */
  async function throughRouteHandlers(path: string, body: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) {
    const [, namespace, project, ...tail] = path.split("?")[0]!.split("/");
    const request = new Request(`http://localhost${path}`, { method: "POST", headers, body });
    return answerReceiverCall(async () => handle.db, {
      target: receiverTargetOf(namespace!, project!, tail),
      request: receiverRequestOf(request),
      aborted: () => false,
    });
  }

  it("records an alert and answers as the route handlers do, with the receiver's headers", async () => {
    const payload = JSON.stringify({ title: "Front door", fingerprint: `front-${uniqueSuffix()}` });
    const response = await post(integrationPath, payload);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([{ iid: 1, title: "Front door" }]);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("connection")).toBe("keep-alive");
    expect(response.headers.get("x-frame-options")).toBe("DENY");

    expect(await throughRouteHandlers(integrationPath, payload)).toEqual({ status: 200, body: [{ iid: 1, title: "Front door" }] });
    const rows = await handle.db.select({ iid: alerts.iid, eventCount: alerts.eventCount }).from(alerts).where(eq(alerts.projectId, projectId));
    expect(rows).toEqual([{ iid: 1, eventCount: 2 }]);
  });

  it.each([
    ["a wrong key", (): string => integrationPath, "{}", { Authorization: "Bearer wrong" }, 401, { message: "401 Unauthorized" }],
    ["no key", (): string => integrationPath, "{}", {}, 401, { message: "401 Unauthorized" }],
    ["invalid JSON", (): string => integrationPath, "{", { Authorization: `Bearer ${key}` }, 400, { message: "The payload is not valid JSON." }],
    ["an unknown identifier", (): string => `/${projectPath}/alerts/notify/x/0123456789abcdef.json`, "{}", {}, 403, { message: "403 Forbidden" }],
    ["the legacy URL of a project without one", (): string => `/${projectPath}/alerts/notify.json`, "{}", {}, 403, { message: "403 Forbidden" }],
    ["a project that does not exist", (): string => "/nobody-here/nothing/prometheus/alerts/notify.json", "{}", {}, 403, { message: "403 Forbidden" }],
  ] as const)("answers %s as the route handlers do", async (_case, path, body, headers, status, answer) => {
    const response = await post(path(), body, headers);
    expect([response.status, await response.json()]).toEqual([status, answer]);
    expect(await throughRouteHandlers(path(), body, headers)).toEqual({ status, body: answer });
  });

  it("answers 413 to a declared oversized body without reading it, and closes the connection", async () => {
    const response = await post(integrationPath, "x".repeat(maxPayloadBytes + 1));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: `The payload is larger than ${maxPayloadBytes} bytes.` });
    expect(response.headers.get("connection")).toBe("close");
  });

  it("stops reading a streamed body at the limit and answers 413", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${base}${integrationPath}`, { method: "POST", headers: { Authorization: `Bearer ${key}` } }, (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
      // No Content-Length: the body arrives chunked, in pieces that pass the limit only together.
      const piece = "x".repeat(64 * 1024);
      for (let sent = 0; sent <= maxPayloadBytes; sent += piece.length) request.write(piece);
      request.end();
    });
    expect(answer).toEqual({ status: 413, body: JSON.stringify({ message: `The payload is larger than ${maxPayloadBytes} bytes.` }) });
  });

  it("gives up on a sender that hangs up mid-body, and keeps serving", async () => {
    const before = await handle.db.select({ iid: alerts.iid }).from(alerts).where(eq(alerts.projectId, projectId));
    await new Promise<void>((resolve) => {
      const request = httpRequest(`${base}${integrationPath}`, { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Length": "1000" } });
      request.on("error", () => resolve());
      request.write('{"title": "Cut', () => setTimeout(() => request.destroy(), 50));
    });
    const response = await post(integrationPath, JSON.stringify({ title: "After", fingerprint: `after-${uniqueSuffix()}` }));
    expect(response.status).toBe(200);
    const after = await handle.db.select({ iid: alerts.iid }).from(alerts).where(eq(alerts.projectId, projectId));
    expect(after.length).toBe(before.length + 1);
  });

  it.each([
    ["another method", "GET", (): string => integrationPath],
    ["a URL that names no receiver", "POST", (): string => `/${projectPath}/alerts/notify/only-a-name`],
    ["a trailing slash", "POST", (): string => `${integrationPath}/`],
    ["a reserved top-level name", "POST", (): string => "/api/v4/alerts/notify.json"],
    ["percent-encoding", "POST", (): string => `/${projectPath.replace("/", "/%61")}/alerts/notify.json`],
    ["an empty segment", "POST", (): string => `/${projectPath}/alerts/notify//${"0".repeat(16)}.json`],
  ] as const)("leaves %s to the framework", async (_case, method, path) => {
    const response = await fetch(`${base}${path()}`, { method, headers: { Authorization: `Bearer ${key}` }, body: method === "GET" ? undefined : "{}" });
    expect(response.status).toBe(leftToFramework);
  });

  it("takes the receiver URLs whatever their query string", async () => {
    const response = await post(`${integrationPath}?source=test`, JSON.stringify({ title: "Query", fingerprint: `query-${uniqueSuffix()}` }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([{ iid: expect.any(Number), title: "Query" }]);
  });
});
