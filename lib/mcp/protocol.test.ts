import { describe, expect, it } from "vitest";
import {
  checkAccept,
  checkContentType,
  checkOrigin,
  exchange,
  invalidParams,
  JsonRpcError,
  maxBatchLength,
  negotiateProtocolVersion,
  parseBody,
  protocolVersionOf,
  readMessage,
  type RequestRunner,
} from "./protocol";

/** Answers `echo` with its params, refuses `bad` as invalid params, and knows no other method. */
const run: RequestRunner = async ({ method, params }) => {
  if (method === "echo") return { echoed: params };
  if (method === "bad") throw invalidParams({ params: "wrong" });
  throw new JsonRpcError(-32601, { method });
};

function thrown(action: () => unknown): JsonRpcError {
  try {
    action();
  } catch (error) {
    if (error instanceof JsonRpcError) return error;
    throw error;
  }
  throw new Error("nothing was thrown");
}

describe("reading a JSON-RPC message", () => {
  it("tells requests, notifications and responses apart", () => {
    expect(readMessage({ jsonrpc: "2.0", id: 1, method: "ping" })).toEqual({ kind: "request", id: 1, method: "ping", params: {} });
    expect(readMessage({ jsonrpc: "2.0", id: "a", method: "tools/list", params: { cursor: "x" } })).toEqual({
      kind: "request",
      id: "a",
      method: "tools/list",
      params: { cursor: "x" },
    });
    expect(readMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).toEqual({ kind: "notification", method: "notifications/initialized" });
    expect(readMessage({ jsonrpc: "2.0", id: 7, result: {} })).toEqual({ kind: "response" });
    expect(readMessage({ jsonrpc: "2.0", id: 7, error: { code: 1, message: "x" } })).toEqual({ kind: "response" });
  });

  it("says what is wrong with a malformed one, keeping its id when it has a usable one", () => {
    const invalid = (value: unknown) => {
      const message = readMessage(value);
      if (message.kind !== "invalid") throw new Error(`read as ${message.kind}`);
      return { id: message.id, error: message.error.toJSON() };
    };
    expect(invalid([])).toEqual({ id: null, error: { code: -32600, message: "Invalid Request", data: "a JSON-RPC message is an object" } });
    expect(invalid("ping")).toEqual({ id: null, error: { code: -32600, message: "Invalid Request", data: "a JSON-RPC message is an object" } });
    expect(invalid({ jsonrpc: "1.0", id: 3, method: "ping" })).toEqual({ id: 3, error: { code: -32600, message: "Invalid Request", data: 'jsonrpc must be "2.0"' } });
    expect(invalid({ id: 3, method: "ping" })).toEqual({ id: 3, error: { code: -32600, message: "Invalid Request", data: 'jsonrpc must be "2.0"' } });
    expect(invalid({ jsonrpc: "2.0", id: null, method: "ping" }).id).toBeNull();
    expect(invalid({ jsonrpc: "2.0", id: 1.5, method: "ping" }).error.data).toBe("id must be a string or an integer");
    expect(invalid({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }).error.data).toBe("id must be a string or an integer");
    expect(invalid({ jsonrpc: "2.0", id: 4 })).toEqual({ id: 4, error: { code: -32600, message: "Invalid Request", data: "method is missing" } });
    expect(invalid({ jsonrpc: "2.0", id: 4, method: 12 }).error.data).toBe("method must be a non-empty string");
    expect(invalid({ jsonrpc: "2.0", id: 4, method: "" }).error.data).toBe("method must be a non-empty string");
    expect(invalid({ jsonrpc: "2.0", id: 5, method: "ping", params: [1, 2] })).toEqual({
      id: 5,
      error: { code: -32602, message: "Invalid params", data: "params must be an object" },
    });
  });
});

describe("answering a POST", () => {
  it("answers a request with its result, or with its error at status 200", async () => {
    expect(await exchange({ jsonrpc: "2.0", id: 1, method: "echo", params: { a: 1 } }, "2025-06-18", run)).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: 1, result: { echoed: { a: 1 } } },
      methods: ["echo"],
    });
    expect(await exchange({ jsonrpc: "2.0", id: "x", method: "nope" }, "2025-06-18", run)).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: "x", error: { code: -32601, message: "Method not found", data: { method: "nope" } } },
      methods: ["nope"],
    });
    expect(await exchange({ jsonrpc: "2.0", id: 2, method: "bad" }, "2025-06-18", run)).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "Invalid params", data: { params: "wrong" } } },
      methods: ["bad"],
    });
  });

  it("accepts notifications and responses with 202 and no body", async () => {
    expect(await exchange({ jsonrpc: "2.0", method: "notifications/initialized" }, "2025-06-18", run)).toEqual({
      status: 202,
      body: null,
      methods: ["notifications/initialized"],
    });
    expect(await exchange({ jsonrpc: "2.0", method: "notifications/unknown", params: [1] }, "2025-06-18", run)).toMatchObject({ status: 202, body: null });
    expect(await exchange({ jsonrpc: "2.0", id: 9, result: {} }, "2025-06-18", run)).toEqual({ status: 202, body: null, methods: [] });
  });

  it("answers a malformed message with 400 and the error", async () => {
    expect(await exchange({ jsonrpc: "2.1", id: 1, method: "echo" }, "2025-06-18", run)).toEqual({
      status: 400,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid Request", data: 'jsonrpc must be "2.0"' } },
      methods: [],
    });
    expect(await exchange(42, "2025-06-18", run)).toEqual({
      status: 400,
      body: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request", data: "a JSON-RPC message is an object" } },
      methods: [],
    });
  });

  it("answers an internal error with 500", async () => {
    const failing: RequestRunner = async () => {
      throw new JsonRpcError(-32603, { request_id: "r1" }, 500);
    };
    expect(await exchange({ jsonrpc: "2.0", id: 1, method: "echo" }, "2025-06-18", failing)).toEqual({
      status: 500,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error", data: { request_id: "r1" } } },
      methods: ["echo"],
    });
  });

  it("lets other errors of the runner through, for the server to log", async () => {
    const broken: RequestRunner = async () => {
      throw new TypeError("bug");
    };
    await expect(exchange({ jsonrpc: "2.0", id: 1, method: "echo" }, "2025-06-18", broken)).rejects.toThrow("bug");
  });

  it("answers batches in 2025-03-26 only, each message in order, requests alone answered", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "echo", params: { n: 1 } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
      { jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "2025-03-26" } },
      "garbage",
    ];
    expect(await exchange(batch, "2025-03-26", run)).toEqual({
      status: 200,
      body: [
        { jsonrpc: "2.0", id: 1, result: { echoed: { n: 1 } } },
        { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found", data: { method: "nope" } } },
        { jsonrpc: "2.0", id: 3, error: { code: -32600, message: "Invalid Request", data: "initialize must not be part of a JSON-RPC batch" } },
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request", data: "a JSON-RPC message is an object" } },
      ],
      methods: ["echo", "notifications/initialized", "nope", "initialize"],
    });
    expect(await exchange([{ jsonrpc: "2.0", method: "notifications/initialized" }], "2025-03-26", run)).toEqual({
      status: 202,
      body: null,
      methods: ["notifications/initialized"],
    });
    for (const version of ["2024-11-05", "2025-06-18", "2025-11-25"] as const) {
      expect(await exchange([{ jsonrpc: "2.0", id: 1, method: "echo" }], version, run)).toEqual({
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request", data: `protocol version ${version} has no JSON-RPC batches: send one message per POST` },
        },
        methods: [],
      });
    }
  });

  it("refuses empty and oversized batches", async () => {
    expect(await exchange([], "2025-03-26", run)).toMatchObject({ status: 400, body: { error: { code: -32600, data: "a batch holds at least one message" } } });
    const many = Array.from({ length: maxBatchLength + 1 }, (_, id) => ({ jsonrpc: "2.0", id, method: "echo" }));
    expect(await exchange(many, "2025-03-26", run)).toMatchObject({ status: 400, body: { error: { code: -32600, data: `a batch holds at most ${maxBatchLength} messages` } } });
  });
});

describe("protocol revisions", () => {
  it("answers initialize with the client's revision when it is one of ours, else the newest", () => {
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) expect(negotiateProtocolVersion(version)).toBe(version);
    expect(negotiateProtocolVersion("2023-01-01")).toBe("2025-11-25");
    expect(negotiateProtocolVersion("2026-07-28")).toBe("2025-11-25");
    expect(thrown(() => negotiateProtocolVersion(undefined)).toJSON()).toEqual({ code: -32602, message: "Invalid params", data: "protocolVersion must be a string" });
    expect(thrown(() => negotiateProtocolVersion(20250618)).code).toBe(-32602);
  });

  it("reads MCP-Protocol-Version, assuming 2025-03-26 without it and refusing unknown ones with 400", () => {
    expect(protocolVersionOf(null)).toBe("2025-03-26");
    expect(protocolVersionOf("2025-06-18")).toBe("2025-06-18");
    const refused = thrown(() => protocolVersionOf("1999-01-01"));
    expect(refused.status).toBe(400);
    expect(refused.toJSON()).toEqual({
      code: -32600,
      message: "Invalid Request",
      data: 'MCP-Protocol-Version "1999-01-01" is not supported; supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05',
    });
  });
});

describe("transport checks", () => {
  it("parses the body or answers JSON-RPC's parse error", () => {
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
    const error = thrown(() => parseBody('{"jsonrpc": "2.0",'));
    expect([error.status, error.toJSON()]).toEqual([400, { code: -32700, message: "Parse error", data: "the request body is not valid JSON" }]);
    expect(thrown(() => parseBody("")).code).toBe(-32700);
  });

  it("refuses bodies nested deeper than 100 levels as invalid requests", () => {
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    expect(parseBody(nested(100))).toBeInstanceOf(Array);
    const error = thrown(() => parseBody(nested(101)));
    expect([error.status, error.toJSON()]).toEqual([400, { code: -32600, message: "Invalid Request", data: "the request body is nested deeper than 100 levels" }]);
    const deepArguments = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"labels":${nested(500_000)}}}}`;
    expect(thrown(() => parseBody(deepArguments)).code).toBe(-32600);
  });

  it("takes JSON bodies only (415)", () => {
    expect(() => checkContentType("application/json")).not.toThrow();
    expect(() => checkContentType("Application/JSON; charset=utf-8")).not.toThrow();
    for (const header of [null, "", "text/plain", "application/x-www-form-urlencoded", "application/json-seq"]) {
      const error = thrown(() => checkContentType(header));
      expect([error.status, error.toJSON()]).toEqual([415, { code: -32600, message: "Invalid Request", data: "Content-Type must be application/json" }]);
    }
  });

  it("answers clients that take JSON, and refuses with 406 those that take only event streams", () => {
    for (const header of [null, "", "application/json, text/event-stream", "*/*", "application/*;q=0.5", "text/event-stream, application/json;q=0.9"]) {
      expect(() => checkAccept(header)).not.toThrow();
    }
    for (const header of ["text/event-stream", "text/html", "application/xml, text/plain"]) expect(thrown(() => checkAccept(header)).status).toBe(406);
  });

  it("lets no browser page of another origin in (403), and clients without an Origin through", () => {
    expect(() => checkOrigin(null, "https://code.example")).not.toThrow();
    expect(() => checkOrigin("https://code.example", "https://code.example")).not.toThrow();
    for (const origin of ["https://evil.example", "http://code.example", "https://code.example:8443", "null", "not a url"]) {
      const error = thrown(() => checkOrigin(origin, "https://code.example"));
      expect([error.status, error.toJSON()]).toEqual([403, { code: -32600, message: "Invalid Request", data: `Origin ${JSON.stringify(origin)} is not allowed` }]);
    }
  });
});
