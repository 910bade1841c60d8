import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadRequestError, ParameterError } from "@/lib/errors";
import { integerParam, positiveIntegerParam, stringListParam } from "./param-types";
import { maxApiBodyBytes, parseParams, readBody, readQuery, requireAtLeastOne } from "./request";

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

function bodyOf(run: () => unknown): unknown {
  const error = errorOf(run);
  expect(error).toBeInstanceOf(ParameterError);
  return (error as ParameterError).body();
}

describe("parseParams", () => {
  const shape = {
    name: z.string(),
    visibility: z.enum(["private", "public"]).optional(),
    count: integerParam.optional(),
    scopes: stringListParam.pipe(z.array(z.enum(["api", "read_user"])).min(1)).optional(),
  };

  it("returns the parsed values", () => {
    expect(parseParams(shape, { name: "x", count: "3", scopes: "api,read_user" })).toEqual({
      name: "x",
      count: 3,
      scopes: ["api", "read_user"],
    });
  });

  it("maps each kind of problem to GitLab's message", () => {
    expect(bodyOf(() => parseParams(shape, {}))).toEqual({ error: "name is missing" });
    expect(bodyOf(() => parseParams(shape, { name: "x", visibility: "secret" }))).toEqual({
      error: "visibility does not have a valid value",
    });
    expect(bodyOf(() => parseParams(shape, { name: 5 }))).toEqual({ error: "name is invalid" });
    expect(bodyOf(() => parseParams(shape, { name: null }))).toEqual({ error: "name is invalid" });
    expect(bodyOf(() => parseParams(shape, { name: "x", count: "abc" }))).toEqual({ error: "count is invalid" });
    // The parameter is named, never the element of a list.
    expect(bodyOf(() => parseParams(shape, { name: "x", scopes: ["api", "root"] }))).toEqual({
      error: "scopes does not have a valid value",
    });
    expect(bodyOf(() => parseParams(shape, { name: "x", scopes: [] }))).toEqual({ error: "scopes is invalid" });
  });

  it("drops parameters it does not declare, as GitLab does, whatever they hold", () => {
    expect(parseParams(shape, { name: "x", statistics: "true", with_custom_attributes: "1", extra: "a\u0000b" })).toEqual({ name: "x" });
  });

  it("refuses NUL characters, which the database cannot store", () => {
    expect(bodyOf(() => parseParams(shape, { name: "a\u0000b" }))).toEqual({ error: "name is invalid" });
    expect(bodyOf(() => parseParams(shape, { name: "x", scopes: ["api\u0000"] }))).toEqual({ error: "scopes is invalid" });
  });

  it("answers 400", () => {
    expect((errorOf(() => parseParams(shape, {})) as ParameterError).status).toBe(400);
  });

  it("refuses lists nested however deep as invalid, rather than running out of stack", () => {
    let nested: unknown = "api";
    for (let level = 0; level < 200_000; level += 1) nested = [nested];
    expect(bodyOf(() => parseParams(shape, { name: "x", scopes: nested }))).toEqual({ error: "scopes is invalid" });
    expect(bodyOf(() => parseParams(shape, { name: "x", scopes: [[["a\u0000"]]] }))).toEqual({ error: "scopes is invalid" });
  });
});

describe("readQuery", () => {
  it("reads list parameters, repeats and leaves out credentials", () => {
    const url = new URL("http://x/api?scopes[]=a&scopes[]=b&tag=1&tag=2&one=x&private_token=t&access_token=u");
    expect(readQuery(url)).toEqual({ scopes: ["a", "b"], tag: ["1", "2"], one: "x" });
  });
});

function post(body: BodyInit | null, contentType?: string, headers: Record<string, string> = {}): Request {
  return new Request("http://x/api", {
    method: "POST",
    body,
    headers: { ...(contentType ? { "content-type": contentType } : {}), ...headers },
  });
}

async function rejection(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(BadRequestError);
  return { status: (error as BadRequestError).status, body: (error as BadRequestError).body() };
}

describe("readBody", () => {
  it("reads JSON objects, forms and multipart", async () => {
    expect(await readBody(post('{"a":1}', "application/json; charset=utf-8"))).toEqual({ a: 1 });
    expect(await readBody(post("a=1&b[]=x&b[]=y", "application/x-www-form-urlencoded"))).toEqual({ a: "1", b: ["x", "y"] });
    const form = new FormData();
    form.append("name", "n");
    expect(await readBody(new Request("http://x/api", { method: "POST", body: form }))).toEqual({ name: "n" });
  });

  it("treats an empty body as no parameters", async () => {
    expect(await readBody(post(null))).toEqual({});
    expect(await readBody(post("  ", "application/json"))).toEqual({});
  });

  it("refuses bodies it cannot read", async () => {
    expect(await rejection(readBody(post("{", "application/json")))).toEqual({
      status: 400,
      body: { message: "400 Bad request - the request body is not valid JSON" },
    });
    expect(await rejection(readBody(post("[1]", "application/json")))).toEqual({
      status: 400,
      body: { message: "400 Bad request - the request body must be a JSON object" },
    });
    expect(await rejection(readBody(post("x", "text/plain")))).toEqual({
      status: 400,
      body: { message: "400 Bad request - the body must be application/json, application/x-www-form-urlencoded or multipart/form-data" },
    });
  });

  it("refuses bodies over the limit, declared or streamed, in every format", async () => {
    const tooLarge = { status: 400, body: { message: `400 Bad request - the request body is larger than ${maxApiBodyBytes} bytes` } };
    const big = "x".repeat(maxApiBodyBytes + 1);
    expect(await rejection(readBody(post(`{"a":"${big}"}`, "application/json")))).toEqual(tooLarge);
    expect(await rejection(readBody(post("{}", "application/json", { "content-length": String(maxApiBodyBytes + 1) })))).toEqual(tooLarge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 5; index += 1) controller.enqueue(new Uint8Array(300 * 1024));
        controller.close();
      },
    });
    const chunked = new Request("http://x/api", {
      method: "POST",
      body: stream,
      headers: { "content-type": "multipart/form-data; boundary=x" },
      duplex: "half",
    } as RequestInit);
    expect(await rejection(readBody(chunked))).toEqual(tooLarge);
  });
});

describe("parameter types", () => {
  it("integers from JSON numbers or digit strings", () => {
    expect(integerParam.parse(5)).toBe(5);
    expect(integerParam.parse("-12")).toBe(-12);
    expect(integerParam.safeParse("1.5").success).toBe(false);
    expect(integerParam.safeParse(1.5).success).toBe(false);
    expect(integerParam.safeParse("abc").success).toBe(false);
    expect(integerParam.safeParse("").success).toBe(false);
  });

  it("positive integers within the database's range", () => {
    expect(positiveIntegerParam.parse("2147483647")).toBe(2147483647);
    expect(positiveIntegerParam.safeParse("2147483648").success).toBe(false);
    expect(positiveIntegerParam.safeParse(0).success).toBe(false);
    expect(positiveIntegerParam.safeParse("-1").success).toBe(false);
  });

  it("lists from arrays or comma-separated strings", () => {
    expect(stringListParam.parse(["a", "b"])).toEqual(["a", "b"]);
    expect(stringListParam.parse(" a, b ,,c ")).toEqual(["a", "b", "c"]);
  });
});

describe("requireAtLeastOne", () => {
  it("refuses a request with none of the names, naming them all in order, as Grape's at_least_one_of", () => {
    expect(() => requireAtLeastOne({ a: undefined, b: undefined }, ["b", "a"])).toThrow(
      new ParameterError("b, a", "are missing, at least one parameter must be provided"),
    );
    expect(() => requireAtLeastOne({ a: undefined, b: null }, ["a", "b"])).not.toThrow();
  });
});
