import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { rootPassword, rootToken } from "../support/constants";

/** A production server of this test's own, on `dataDir`, resolved once it answers its readiness check. */
async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["server.mjs", "-p", String(port)], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      PORT: String(port),
      DATA_DIR: dataDir,
      EXTERNAL_URL: `http://localhost:${port}`,
      INITIAL_ROOT_PASSWORD: rootPassword,
      INITIAL_ROOT_TOKEN: rootToken,
      LOG_LEVEL: "warn",
      // As on the suites' own servers: answers that depart from their declared schema are 500s.
      API_RESPONSE_CHECK: "true",
    },
    stdio: "ignore",
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ready = await fetch(`http://localhost:${port}/-/readiness`).then((response) => response.ok, () => false);
    if (ready) return child;
    if (Date.now() > deadline) throw new Error("the server did not become ready");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function api(port: number, method: string, apiPath: string, body?: unknown): Promise<Record<string, unknown> & Record<string, unknown>[]> {
  const response = await fetch(`http://localhost:${port}/api/v4${apiPath}`, {
    method,
    headers: { "PRIVATE-TOKEN": rootToken, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${apiPath}`).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown> & Record<string, unknown>[];
}

test("a server killed with SIGKILL mid-delivery delivers it once restarted on the same database", async ({}, testInfo) => {
  test.skip(testInfo.project.name !== "pglite", "starts and kills a server of its own, once per run");
  test.setTimeout(240_000);
  const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 7;
  const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-webhook-crash-"));
  // The receiver takes the first request and never answers it; later ones get 200.
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (received.length > 1) response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/crash`;
  let server: ChildProcess | undefined;
  try {
    server = await startServer(port, dataDir);
    // The receiver is on this machine: the admin allows the local network, as GitLab's setting does.
    await api(port, "PUT", "/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
    const project = await api(port, "POST", "/projects", { name: "Crash test" });
    const hook = await api(port, "POST", `/projects/${project.id as number}/hooks`, { url: receiverUrl, issues_events: true, push_events: false });
    await api(port, "POST", `/projects/${project.id as number}/issues`, { title: "Delivered despite the crash" });
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);

    // Mid-delivery: the request is out, its answer never came, nothing was recorded.
    server.kill("SIGKILL");
    await new Promise((resolve) => server!.once("exit", resolve));
    server = await startServer(port, dataDir);

    // The lease the killed process held runs out (60 s) and the restarted server sends the delivery again.
    await expect.poll(() => received.length, { timeout: 120_000, intervals: [1000] }).toBe(2);
    expect(received[1]!.headers["idempotency-key"]).toBe(received[0]!.headers["idempotency-key"]);
    expect(received[1]!.headers["x-gitlab-event"]).toBe("Issue Hook");
    expect(JSON.parse(received[1]!.body)).toEqual(JSON.parse(received[0]!.body));
    await expect
      .poll(async () => (await api(port, "GET", `/projects/${project.id as number}/hooks/${hook.id as number}/events`)).map((log) => log.response_status), {
        timeout: 10_000,
      })
      .toEqual(["200"]);
  } finally {
    server?.kill("SIGKILL");
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
