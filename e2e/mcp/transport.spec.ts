import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createProject, createToken, createUser } from "../support/api";
import { answered, callTool, mcpPath, postMessage } from "./support";

const initialize = (protocolVersion: unknown, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1.0" } },
});

test.describe("the Streamable HTTP transport", () => {
  test("initialize settles on the client's revision when the server speaks it, else its newest", async ({ request }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      const response = await postMessage(request, token, initialize(version, version));
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toBe("application/json");
      expect(response.headers()["mcp-session-id"]).toBeUndefined();
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        id: version,
        result: {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "GitLab-compatible MCP Server", title: "GitLab-compatible MCP Server", version: "16.10.0" },
          instructions: expect.stringContaining("GitLab REST API"),
        },
      });
    }
    const newer = await postMessage(request, token, initialize("2099-01-01"));
    expect(((await newer.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-11-25");
    const missing = await postMessage(request, token, { jsonrpc: "2.0", id: 3, method: "initialize", params: {} });
    expect(missing.status()).toBe(200);
    expect(await missing.json()).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Invalid params", data: "protocolVersion must be a string" } });
  });

  test("notifications and responses are accepted with 202; ping answers; unknown methods are JSON-RPC's -32601", async ({ request }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    const headers = { "MCP-Protocol-Version": "2025-06-18" };
    const initialized = await postMessage(request, token, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    expect(initialized.status()).toBe(202);
    expect(await initialized.text()).toBe("");
    expect((await postMessage(request, token, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } }, headers)).status()).toBe(202);
    expect((await postMessage(request, token, { jsonrpc: "2.0", id: 99, result: {} }, headers)).status()).toBe(202);
    const ping = await postMessage(request, token, { jsonrpc: "2.0", id: "p", method: "ping" }, headers);
    expect(ping.status()).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: "p", result: {} });
    const unknown = await postMessage(request, token, { jsonrpc: "2.0", id: 5, method: "resources/list" }, headers);
    expect(unknown.status()).toBe(200);
    expect(await unknown.json()).toEqual({ jsonrpc: "2.0", id: 5, error: { code: -32601, message: "Method not found", data: { method: "resources/list" } } });
  });

  test("GET, DELETE and PUT are 405 with Allow: POST (no event stream, no sessions)", async ({ request }) => {
    const user = await createUser(request);
    const headers = { Authorization: `Bearer ${(await createToken(request, user.id, ["mcp"])).token}`, Accept: "text/event-stream" };
    for (const method of ["GET", "DELETE", "PUT"]) {
      const response = await request.fetch(mcpPath, { method, headers });
      expect(response.status(), method).toBe(405);
      expect(response.headers().allow).toBe("POST");
      expect(await response.json()).toEqual({ message: "405 Method Not Allowed" });
    }
  });

  test("batches only in 2025-03-26, which has them", async ({ request }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_mcp_server_version" } },
    ];
    const old = await postMessage(request, token, batch, { "MCP-Protocol-Version": "2025-03-26" });
    expect(old.status()).toBe(200);
    expect(await old.json()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "16.10.0" }], structuredContent: { version: "16.10.0", revision: expect.any(String) }, isError: false },
      },
    ]);
    const current = await postMessage(request, token, batch, { "MCP-Protocol-Version": "2025-06-18" });
    expect(current.status()).toBe(400);
    expect(await current.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request", data: "protocol version 2025-06-18 has no JSON-RPC batches: send one message per POST" },
    });
  });

  test("an unsupported MCP-Protocol-Version is 400", async ({ request }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    const response = await postMessage(request, token, { jsonrpc: "2.0", id: 1, method: "ping" }, { "MCP-Protocol-Version": "2024-01-01" });
    expect(response.status()).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request",
        data: 'MCP-Protocol-Version "2024-01-01" is not supported; supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05',
      },
    });
  });

  test("browser pages of other origins are refused with 403; the service's own origin is let in", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    const foreign = await postMessage(request, token, { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: "https://attacker.example" });
    expect(foreign.status()).toBe(403);
    expect(await foreign.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request", data: 'Origin "https://attacker.example" is not allowed' },
    });
    // Refused before anything else, a token or none.
    expect((await postMessage(request, null, { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: "http://localhost.attacker.example" })).status()).toBe(403);
    const own = await postMessage(request, token, { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: new URL(baseURL!).origin });
    expect(own.status()).toBe(200);
  });

  test("bodies other than JSON are 415, and clients that take only event streams 406", async ({ request }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["mcp"])).token;
    const form = await postMessage(request, token, "jsonrpc=2.0", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(form.status()).toBe(415);
    expect(await form.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request", data: "Content-Type must be application/json" } });
    const streamOnly = await postMessage(request, token, { jsonrpc: "2.0", id: 1, method: "ping" }, { Accept: "text/event-stream" });
    expect(streamOnly.status()).toBe(406);
    expect(await streamOnly.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request", data: "Accept must allow application/json: this server answers with JSON, not event streams" },
    });
  });
});

test("mcp-remote bridges a stdio MCP client to the server with a token header", async ({ request, baseURL }) => {
  test.setTimeout(90_000);
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const token = (await createToken(request, owner.id, ["mcp"])).token;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.resolve("node_modules/mcp-remote/dist/proxy.js"),
      new URL(mcpPath, baseURL).toString(),
      "--header",
      `Authorization:Bearer ${token}`,
      "--transport",
      "http-only",
    ],
    // Its own configuration directory, so nothing of the machine's (or another run's) sign-ins is read or written.
    env: { PATH: process.env.PATH ?? "", HOME: mkdtempSync(path.join(tmpdir(), "mcp-remote-")), MCP_REMOTE_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), "mcp-remote-config-")) },
    stderr: "pipe",
  });
  // Read what the bridge logs, so its pipe never fills, and to tell why if it fails.
  let logged = "";
  transport.stderr?.on("data", (chunk: Buffer) => (logged += chunk.toString()));
  const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`mcp-remote did not connect: ${String(error)}\n${logged}`);
  });
  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("get_project");
  expect(answered(await callTool(client, "get_project", { id: project.id }))).toMatchObject({ id: project.id, path_with_namespace: project.path_with_namespace });
  expect(answered(await callTool(client, "create_issue", { id: project.id, title: "Through the bridge" }))).toMatchObject({ iid: 1, title: "Through the bridge" });
  await client.close();
});
