/**
 * The Model Context Protocol's JSON-RPC 2.0 layer over Streamable HTTP, as a client's POST meets it: which messages a
 * body holds, which protocol revision they speak, and what status and body answer them. Pure: the server
 * (`lib/mcp/server.ts`) gives it the parsed body and a function that runs one request, and writes what comes back.
 *
 * Specifications: https://www.jsonrpc.org/specification and
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */

export const jsonRpcVersion = "2.0";

/** The revisions this server speaks, newest first. */
export const supportedProtocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export type ProtocolVersion = (typeof supportedProtocolVersions)[number];
export const latestProtocolVersion: ProtocolVersion = supportedProtocolVersions[0];

/**
 * What a request without an `MCP-Protocol-Version` header speaks: the transport says to assume 2025-03-26, the
 * revision before the header existed.
 */
export const assumedProtocolVersion: ProtocolVersion = "2025-03-26";

/** JSON-RPC batches exist in 2025-03-26 only: 2024-11-05 had none, and 2025-06-18 took them out again. */
export function allowsBatches(version: ProtocolVersion): boolean {
  return version === "2025-03-26";
}

/** At most this many messages in one batch: each may be a tool call, and one POST must stay one bounded piece of work. */
export const maxBatchLength = 20;

/** Error codes of JSON-RPC 2.0. */
export const errorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

const errorMessages: Record<number, string> = {
  [errorCodes.parseError]: "Parse error",
  [errorCodes.invalidRequest]: "Invalid Request",
  [errorCodes.methodNotFound]: "Method not found",
  [errorCodes.invalidParams]: "Invalid params",
  [errorCodes.internalError]: "Internal error",
};

export type JsonRpcId = string | number;

/**
 * A JSON-RPC error, which is its own wire format: `{"code","message","data"}` in an error response. `status` is the
 * HTTP status it answers a whole POST with when it is about the POST itself (a body that is not JSON, a foreign
 * Origin); errors of one request of a valid message travel with 200, as JSON-RPC results do, so that clients hand them
 * to the call that made the request rather than failing the connection.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    readonly data?: unknown,
    readonly status = 400,
    message = errorMessages[code] ?? "Server error",
  ) {
    super(message);
  }

  toJSON() {
    return { code: this.code, message: this.message, ...(this.data === undefined ? {} : { data: this.data }) };
  }
}

export function invalidRequest(data: unknown, status = 400): JsonRpcError {
  return new JsonRpcError(errorCodes.invalidRequest, data, status);
}

export function invalidParams(data: unknown): JsonRpcError {
  return new JsonRpcError(errorCodes.invalidParams, data);
}

export function methodNotFound(method: string): JsonRpcError {
  return new JsonRpcError(errorCodes.methodNotFound, { method });
}

export interface JsonRpcResponse {
  jsonrpc: typeof jsonRpcVersion;
  id: JsonRpcId | null;
  result?: unknown;
  error?: ReturnType<JsonRpcError["toJSON"]>;
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: jsonRpcVersion, id, result };
}

export function errorResponse(id: JsonRpcId | null, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: jsonRpcVersion, id, error: error.toJSON() };
}

export type Params = Record<string, unknown>;

/** One message of a POST, read. */
export type IncomingMessage =
  | { kind: "request"; id: JsonRpcId; method: string; params: Params }
  | { kind: "notification"; method: string }
  /** A client's answer to a request of the server's: this server sends none, so there is nothing to match it with. */
  | { kind: "response" }
  | { kind: "invalid"; id: JsonRpcId | null; error: JsonRpcError };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** MCP's ids are strings or integers; JSON-RPC's null id is for errors only. */
function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

/** Reads one JSON-RPC message, saying what is wrong with it in the answer's own terms rather than throwing. */
export function readMessage(value: unknown): IncomingMessage {
  if (!isPlainObject(value)) return { kind: "invalid", id: null, error: invalidRequest("a JSON-RPC message is an object") };
  const hasId = Object.hasOwn(value, "id");
  if (hasId && !isId(value.id)) return { kind: "invalid", id: null, error: invalidRequest("id must be a string or an integer") };
  const id = hasId ? (value.id as JsonRpcId) : null;
  if (value.jsonrpc !== jsonRpcVersion) return { kind: "invalid", id, error: invalidRequest('jsonrpc must be "2.0"') };
  if (!Object.hasOwn(value, "method")) {
    if (hasId && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) return { kind: "response" };
    return { kind: "invalid", id, error: invalidRequest("method is missing") };
  }
  if (typeof value.method !== "string" || value.method === "") return { kind: "invalid", id, error: invalidRequest("method must be a non-empty string") };
  if (id === null) return { kind: "notification", method: value.method };
  if (value.params !== undefined && !isPlainObject(value.params)) return { kind: "invalid", id, error: invalidParams("params must be an object") };
  return { kind: "request", id, method: value.method, params: (value.params as Params | undefined) ?? {} };
}

/** The revision a POST speaks, from its `MCP-Protocol-Version` header: one this server does not speak is a 400. */
export function protocolVersionOf(header: string | null): ProtocolVersion {
  if (header === null) return assumedProtocolVersion;
  const version = supportedProtocolVersions.find((supported) => supported === header.trim());
  if (!version) {
    throw invalidRequest(`MCP-Protocol-Version ${JSON.stringify(header)} is not supported; supported: ${supportedProtocolVersions.join(", ")}`);
  }
  return version;
}

/**
 * The revision `initialize` settles on: the client's, if this server speaks it, else the newest this server speaks,
 * which the client may accept or disconnect from.
 */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  if (typeof requested !== "string") throw invalidParams("protocolVersion must be a string");
  return supportedProtocolVersions.find((supported) => supported === requested) ?? latestProtocolVersion;
}

/** Runs one request and gives its result, or throws a `JsonRpcError` (any other error is the caller's to handle). */
export type RequestRunner = (request: Extract<IncomingMessage, { kind: "request" }>) => Promise<unknown>;

/** What answers a POST: its status and JSON body, or no body (202: only notifications and responses came). */
export interface Exchange {
  status: number;
  body: JsonRpcResponse | JsonRpcResponse[] | null;
  /** The methods of the messages the POST carried, for the log. */
  methods: string[];
}

/** Whether a parsed body is a single `initialize` request, which a client sends before it knows the revision. */
export function isInitialize(body: unknown): boolean {
  return isPlainObject(body) && body.method === "initialize";
}

/**
 * Answers a POST's parsed body: a single message, or (in a revision that has them) a batch. A request's answer is its
 * result or its error; notifications and responses get none, and a POST of nothing else is accepted with 202.
 */
export async function exchange(body: unknown, version: ProtocolVersion, run: RequestRunner): Promise<Exchange> {
  if (!Array.isArray(body)) {
    const message = readMessage(body);
    if (message.kind === "invalid") return { status: message.error.status, body: errorResponse(message.id, message.error), methods: [] };
    if (message.kind !== "request") return { status: 202, body: null, methods: message.kind === "notification" ? [message.method] : [] };
    const response = await answer(message, run);
    const status = response.error?.code === errorCodes.internalError ? 500 : 200;
    return { status, body: response, methods: [message.method] };
  }
  if (!allowsBatches(version)) return rejected(invalidRequest(`protocol version ${version} has no JSON-RPC batches: send one message per POST`));
  if (body.length === 0) return rejected(invalidRequest("a batch holds at least one message"));
  if (body.length > maxBatchLength) return rejected(invalidRequest(`a batch holds at most ${maxBatchLength} messages`));
  const responses: JsonRpcResponse[] = [];
  const methods: string[] = [];
  // One after the other: a batch is no way to run more at once than one request would.
  for (const element of body) {
    const message = readMessage(element);
    if (message.kind === "invalid") responses.push(errorResponse(message.id, message.error));
    else if (message.kind === "notification") methods.push(message.method);
    else if (message.kind === "request") {
      methods.push(message.method);
      responses.push(
        message.method === "initialize"
          ? errorResponse(message.id, invalidRequest("initialize must not be part of a JSON-RPC batch"))
          : await answer(message, run),
      );
    }
  }
  return responses.length === 0 ? { status: 202, body: null, methods } : { status: 200, body: responses, methods };
}

function rejected(error: JsonRpcError): Exchange {
  return { status: error.status, body: errorResponse(null, error), methods: [] };
}

async function answer(request: Extract<IncomingMessage, { kind: "request" }>, run: RequestRunner): Promise<JsonRpcResponse> {
  try {
    return resultResponse(request.id, await run(request));
  } catch (error) {
    if (error instanceof JsonRpcError) return errorResponse(request.id, error);
    throw error;
  }
}

/**
 * How deep a POST's JSON may nest: far more than any message needs (a tool's arguments sit four levels down), and few
 * enough that nothing that walks it later can run out of stack. The alert receiver holds payloads to the same depth.
 */
export const maxNesting = 100;

/** The body as JSON, or the error that answers it: JSON-RPC's parse error, or an invalid request nested too deep. */
export function parseBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new JsonRpcError(errorCodes.parseError, "the request body is not valid JSON");
  }
  if (nestedDeeperThan(body, maxNesting)) throw invalidRequest(`the request body is nested deeper than ${maxNesting} levels`);
  return body;
}

/** Walked without recursion, for the same reason it is checked. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether the POST's `Content-Type` is JSON, as the transport requires; anything else is refused with 415 before the
 * body is read.
 */
export function checkContentType(header: string | null): void {
  const mediaType = (header ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") throw invalidRequest("Content-Type must be application/json", 415);
}

/**
 * Whether the client takes a JSON answer. The transport has clients accept both JSON and event streams; this server
 * always answers JSON, so a client that accepts only event streams (or nothing JSON) gets 406. No header takes anything.
 */
export function checkAccept(header: string | null): void {
  if (header === null || header.trim() === "") return;
  const ranges = header.split(",").map((range) => range.split(";")[0]!.trim().toLowerCase());
  if (!ranges.some((range) => range === "application/json" || range === "application/*" || range === "*/*")) {
    throw invalidRequest("Accept must allow application/json: this server answers with JSON, not event streams", 406);
  }
}

/**
 * The transport's guard against DNS rebinding: a browser page may only reach the server from the server's own origin.
 * Clients that are not browsers send no `Origin` at all.
 */
export function checkOrigin(header: string | null, serverOrigin: string): void {
  if (header === null) return;
  let origin: string | null;
  try {
    origin = new URL(header).origin;
  } catch {
    origin = null;
  }
  if (origin !== serverOrigin) throw invalidRequest(`Origin ${JSON.stringify(header)} is not allowed`, 403);
}
