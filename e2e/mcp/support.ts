import { expect, type APIRequestContext } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { asToken, createProject, createUser, type CreatedProject, type CreatedUser } from "../support/api";

export const mcpPath = "/api/v4/mcp";

/** A person with a project of their own, for whom an MCP client is authorized and files issues. */
export async function ownerWithProject(request: APIRequestContext): Promise<{ user: CreatedUser; project: CreatedProject }> {
  const user = await createUser(request);
  return { user, project: await createProject(request, user.token) };
}

/** Connects the MCP SDK's own client to the server with `token`, as Claude Code, VS Code or Cursor connect. */
export async function connectClient(baseURL: string, token: string): Promise<Client> {
  const client = new Client({ name: "e2e-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpPath, baseURL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's result, as the SDK gives it. */
export interface ToolCallResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
  return (await client.callTool({ name, arguments: args })) as ToolCallResult;
}

/** The JSON a tool answered with: its text, parsed, after checking it succeeded. */
export function answered(result: ToolCallResult): unknown {
  expect(result.isError, result.content[0]?.text).toBe(false);
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe("text");
  return JSON.parse(result.content[0]!.text);
}

/** The REST API's JSON for a GET, as the holder of `token`. */
export async function restGet(request: APIRequestContext, token: string, path: string): Promise<unknown> {
  const response = await request.get(`/api/v4${path}`, { headers: asToken(token) });
  expect(response.status(), await response.text()).toBe(200);
  return response.json();
}

/** One JSON-RPC message POSTed as it is, with a token and the headers a Streamable HTTP client sends. */
export function postMessage(
  request: APIRequestContext,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return request.post(mcpPath, {
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    data: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  });
}
