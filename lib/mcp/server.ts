import "server-only";
import { findPresentedToken } from "@/lib/api/authenticate";
import { renderError, requestIdOf, throttledActor } from "@/lib/api/handler";
import { json } from "@/lib/api/respond";
import { mcpServerScopes } from "@/lib/api/scopes";
import { createContext, type Actor, type Ctx } from "@/lib/context";
import { getDatabase } from "@/lib/db";
import { env } from "@/lib/env";
import { InsufficientScopeError, InvalidTokenError, UnauthorizedError } from "@/lib/errors";
import type { Answer } from "@/lib/http/answer";
import { readBodyText } from "@/lib/http/body";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { instanceMetadata } from "@/lib/instance/metadata";
import { maxTextRequestBytes } from "@/lib/issues/text-limits";
import { logger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics";
import {
  checkAccept,
  checkContentType,
  checkOrigin,
  errorCodes,
  errorResponse,
  exchange,
  invalidParams,
  invalidRequest,
  isInitialize,
  JsonRpcError,
  methodNotFound,
  negotiateProtocolVersion,
  parseBody,
  protocolVersionOf,
  assumedProtocolVersion,
  type IncomingMessage,
} from "./protocol";
import { bearerChallenge, isTokenAcceptableForResource, mcpResourceUrl } from "./resource";
import { findTool, mcpTools, runTool, toolAvailableTo } from "./tools";

/**
 * `POST /api/v4/mcp`: the MCP server over Streamable HTTP, stateless and answering JSON (no event streams, no
 * sessions: every tool answers at once, and any replica can take any request). The one place MCP requests become
 * answers: transport checks, authentication with the challenge that leads clients to sign in, the JSON-RPC exchange,
 * and the log and metrics of each request.
 */

const route = "/mcp";

/** Room for the longest description or comment a tool takes, with its JSON-RPC envelope. */
export const maxMcpBodyBytes = maxTextRequestBytes;

export const serveMcp = directlyDispatchable(async (request: Request): Promise<Answer> => {
  const startedAt = performance.now();
  const requestId = requestIdOf(request);
  const url = new URL(request.url);
  let answer: Answer;
  let methods: string[] = [];
  try {
    checkOrigin(request.headers.get("origin"), new URL(env.EXTERNAL_URL).origin);
    const db = await getDatabase();
    const now = new Date();
    const ctx: Ctx = { ...createContext(db, await mcpActor(request, url, db, now)), now };
    checkContentType(request.headers.get("content-type"));
    checkAccept(request.headers.get("accept"));
    const text = await readBodyText(request, maxMcpBodyBytes, () => invalidRequest(`the request body is larger than ${maxMcpBodyBytes} bytes`, 413));
    const body = parseBody(text);
    // A client sends `initialize` before it knows which revision the server speaks, so only later messages carry it.
    const version = isInitialize(body) ? assumedProtocolVersion : protocolVersionOf(request.headers.get("mcp-protocol-version"));
    const exchanged = await exchange(body, version, (message) => runRequest(ctx, message, requestId));
    methods = exchanged.methods;
    answer = exchanged.body === null ? { status: 202, headers: { "Cache-Control": "no-store" }, body: null } : json(exchanged.body, exchanged.status);
  } catch (error) {
    answer = renderFailure(error, request, url, requestId);
  }
  answer.headers["X-Request-Id"] = requestId;
  observeRequest(request.method, route, answer.status, startedAt);
  logger.info(
    // Method names are the client's: a few of them, each cut short, are enough to tell what a request was.
    { requestId, method: request.method, route, rpc: methods.map((name) => name.slice(0, 100)), status: answer.status, durationMs: Math.round(performance.now() - startedAt) },
    "mcp request",
  );
  return answer;
});

/** The MCP transport listens on POST only: no server-sent event stream to open (GET), no session to end (DELETE). */
export const mcpMethodNotAllowed = directlyDispatchable(
  (): Answer => ({
    status: 405,
    headers: { Allow: "POST", "Content-Type": "application/json", "Cache-Control": "no-store" },
    body: JSON.stringify({ message: "405 Method Not Allowed" }),
  }),
);

/**
 * The caller: a token (OAuth access token or personal access token, never our pages' session cookie) with a scope the
 * server accepts, counted against the API's throttles, and acceptable for this resource.
 */
async function mcpActor(request: Request, url: URL, db: Awaited<ReturnType<typeof getDatabase>>, now: Date): Promise<Actor> {
  const actor = await throttledActor(request, url, db, now, { sessions: false });
  if (actor.kind !== "user") throw new UnauthorizedError();
  if (actor.scopes && !mcpServerScopes.some((scope) => actor.scopes!.has(scope))) throw new InsufficientScopeError(mcpServerScopes);
  if (!isTokenAcceptableForResource(actor, mcpResourceUrl())) throw new InvalidTokenError("The access token was not issued for this resource.");
  return actor;
}

/**
 * A failure of the whole POST. Transport problems are JSON-RPC errors without an id; authentication failures are the
 * REST API's bodies with a Bearer challenge pointing at the resource metadata, so clients know where to sign in.
 */
function renderFailure(error: unknown, request: Request, url: URL, requestId: string): Answer {
  if (error instanceof JsonRpcError) return json(errorResponse(null, error), error.status);
  const answer = renderError(error, requestId, route);
  if (answer.status === 401) {
    // RFC 6750 §3.1: a request without a token gets no error code, one with a token we refuse gets invalid_token.
    const presented = findPresentedToken(request, url) !== null;
    const description = error instanceof InvalidTokenError ? error.description : "The access token is invalid";
    answer.headers["WWW-Authenticate"] = bearerChallenge(presented ? { error: "invalid_token", description } : undefined);
  } else if (error instanceof InsufficientScopeError) {
    answer.headers["WWW-Authenticate"] = bearerChallenge({ error: "insufficient_scope", description: error.message });
  }
  return answer;
}

/** What the server says it is in `initialize`. */
function serverInfo() {
  return { name: "GitLab-compatible MCP Server", title: "GitLab-compatible MCP Server", version: instanceMetadata().version };
}

const instructions =
  "Tools for this service's projects, issues and their comments, project activity events and alerts. " +
  "Each tool answers with the JSON of the GitLab REST API endpoint it is named after; projects are named by id or by path (group/project).";

async function runRequest(ctx: Ctx, request: Extract<IncomingMessage, { kind: "request" }>, requestId: string): Promise<unknown> {
  const { params } = request;
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: negotiateProtocolVersion(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: serverInfo(),
        instructions,
      };
    case "ping":
      return {};
    case "tools/list":
      return {
        tools: mcpTools
          .filter((tool) => toolAvailableTo(ctx.actor, tool))
          .map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema(), annotations: tool.annotations })),
      };
    case "tools/call":
      return callTool(ctx, params, requestId);
    default:
      throw methodNotFound(request.method);
  }
}

/** `tools/call`: its parameters checked, then the tool run. */
async function callTool(ctx: Ctx, params: Record<string, unknown>, requestId: string) {
  const { name, arguments: args = {} } = params;
  if (typeof name !== "string") throw invalidParams("name must be a string");
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw invalidParams("arguments must be an object");
  const tool = findTool(name);
  if (!tool) throw new JsonRpcError(errorCodes.invalidParams, { name }, 200, `Unknown tool: ${name}`);
  return runTool(ctx, tool, args as Record<string, unknown>, requestId);
}
