import { describe, expect, it } from "vitest";
import type { Scope } from "@/lib/api/scopes";
import { env } from "@/lib/env";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser } from "@/lib/testing/fixtures";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { mcpMethodNotAllowed, serveMcp } from "./server";

/**
 * The MCP server's route handler, called as the framework calls it, on a test database: what reaches a client over
 * HTTP, from the challenge of an anonymous POST to a tool's answer.
 */
describe.each(testDatabases())("the MCP server's HTTP handler on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const endpoint = `${env.EXTERNAL_URL}/api/v4/mcp`;

  function serveFromSuiteDatabase() {
    (globalThis as unknown as { databaseHandle?: Promise<unknown> }).databaseHandle = Promise.resolve(handle);
  }

  async function tokenWith(...scopes: Scope[]): Promise<string> {
    serveFromSuiteDatabase();
    const user = await createTestUser(handle.db);
    return (await insertPersonalAccessToken(handle.db, user.id, { name: "mcp", scopes }, new Date())).token;
  }

  function post(token: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return serveMcp(
      new Request(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
      undefined,
    );
  }

  it("answers an anonymous POST with 401 and the challenge that leads to the resource metadata", async () => {
    serveFromSuiteDatabase();
    const response = await post(null, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: "401 Unauthorized" });
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer realm="GitLab", scope="mcp", resource_metadata="${env.EXTERNAL_URL}/.well-known/oauth-protected-resource/api/v4/mcp"`,
    );
  });

  it("initializes, lists tools and calls one", async () => {
    const token = await tokenWith("mcp");
    const initialized = await post(token, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    expect(initialized.status).toBe(200);
    expect(initialized.headers.get("content-type")).toBe("application/json");
    expect(await initialized.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: false } } } });

    const accepted = await post(token, { jsonrpc: "2.0", method: "notifications/initialized" }, { "MCP-Protocol-Version": "2025-06-18" });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe("");

    const listed = (await (await post(token, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "MCP-Protocol-Version": "2025-06-18" })).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(listed.result.tools.map((tool) => tool.name)).toContain("create_issue");

    const called = await post(token, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_projects", arguments: { owned: true } } }, { "MCP-Protocol-Version": "2025-06-18" });
    expect(await called.json()).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { content: [{ type: "text", text: "[]" }], structuredContent: { items: [], metadata: { count: 0, has_more: false } }, isError: false },
    });
  });

  it("refuses tokens without an MCP scope with 403 and a step-up challenge, and foreign origins with 403", async () => {
    const readUser = await tokenWith("read_user");
    const refused = await post(readUser, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const foreign = await post(await tokenWith("mcp"), { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: "https://elsewhere.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request", data: 'Origin "https://elsewhere.example" is not allowed' } });
  });

  it("answers GET with 405 and Allow: POST", async () => {
    const response = await mcpMethodNotAllowed(new Request(endpoint), undefined);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});
