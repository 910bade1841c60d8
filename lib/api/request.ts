import "server-only";
import { z } from "zod";
import { BadRequestError, ParameterError } from "@/lib/errors";
import { readBodyBytes, readBodyText } from "@/lib/http/body";

export const maxApiBodyBytes = 1024 * 1024;

/** Token parameters are read by the authentication step and may accompany any request. */
export const credentialParams: ReadonlySet<string> = new Set(["private_token", "access_token"]);

export type RawParams = Record<string, string | string[]>;

/** Query parameters as a plain object: `name[]` is read as `name`, repeated names become arrays. */
export function readQuery(url: URL): RawParams {
  return collect(url.searchParams.entries());
}

function collect(entries: Iterable<[string, string]>): RawParams {
  const params: RawParams = {};
  for (const [rawName, value] of entries) {
    const isList = rawName.endsWith("[]");
    const name = isList ? rawName.slice(0, -2) : rawName;
    if (credentialParams.has(name)) continue;
    const existing = params[name];
    if (existing === undefined) params[name] = isList ? [value] : value;
    else params[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return params;
}

function bodyTooLarge(limit: number): () => BadRequestError {
  return () => new BadRequestError(`400 Bad request - the request body is larger than ${limit} bytes`);
}

/**
 * The body's parameters: a JSON object, or URL-encoded / multipart form fields. An empty body is `{}`. Bodies over
 * `limit` bytes are refused (endpoints that take long texts read more than the default).
 */
export async function readBody(request: Request, limit = maxApiBodyBytes): Promise<Record<string, unknown>> {
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (contentType === "multipart/form-data") {
    // Read under the same size limit as any other body, then let the platform parse the parts.
    const raw = await readBodyBytes(request, limit, bodyTooLarge(limit));
    const form = await new Response(new Uint8Array(raw), { headers: { "content-type": request.headers.get("content-type")! } }).formData().catch(() => {
      throw new BadRequestError("400 Bad request - the multipart form body could not be read");
    });
    return collect([...form.entries()].map(([name, value]) => [name, typeof value === "string" ? value : value.name]));
  }
  const text = await readBodyText(request, limit, bodyTooLarge(limit));
  if (text.trim() === "") return {};
  if (contentType === "application/x-www-form-urlencoded") return collect(new URLSearchParams(text).entries());
  if (contentType !== "application/json" && !contentType.endsWith("+json") && contentType !== "") {
    throw new BadRequestError(
      "400 Bad request - the body must be application/json, application/x-www-form-urlencoded or multipart/form-data",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError("400 Bad request - the request body is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new BadRequestError("400 Bad request - the request body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/**
 * Validates the declared parameters and turns the first problem into GitLab's `{"error":"<param> <problem>"}`.
 * Parameters the shape does not declare are dropped, as GitLab's API framework drops them: clients send parameters
 * this service does not know (`statistics`, `with_custom_attributes`, …), and that must never break a call.
 */
export function parseParams<Shape extends z.ZodRawShape>(
  shape: Shape,
  input: Record<string, unknown>,
): z.infer<z.ZodObject<Shape>> {
  // PostgreSQL text cannot hold NUL characters; such a value is a bad parameter, not a server error.
  for (const name of Object.keys(shape)) {
    if (containsNul(input[name])) throw new ParameterError(name, "is invalid");
  }
  const result = schemaOf(shape).safeParse(input, { jitless: true });
  if (result.success) return result.data as z.infer<z.ZodObject<Shape>>;
  const issue = result.error.issues[0]!;
  // GitLab names the parameter, not the element: `scopes does not have a valid value`.
  const param = String(issue.path[0] ?? "body");
  if (input[param] === undefined) throw new ParameterError(param, "is missing");
  if (issue.code === "invalid_value") throw new ParameterError(param, "does not have a valid value");
  if (issue.code === "custom" && typeof issue.params?.problem === "string") throw new ParameterError(param, issue.params.problem);
  throw new ParameterError(param, "is invalid");
}

/**
 * Most routes pass a shape declared once at module level; its schema is built once too. A shape written inline is a
 * new object on every call and gets a fresh schema each time, which is why parsing stays `jitless`: compiling zod's
 * fast path for a schema used once costs more than it saves.
 */
const schemas = new WeakMap<z.ZodRawShape, z.ZodObject>();

function schemaOf(shape: z.ZodRawShape): z.ZodObject {
  let schema = schemas.get(shape);
  if (!schema) {
    schema = z.object(shape);
    schemas.set(shape, schema);
  }
  return schema;
}

/** Walked without recursion: a list nested a million levels deep is a bad parameter, not a stack overflow. */
function containsNul(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string" && item.includes("\u0000")) return true;
    if (Array.isArray(item)) pending.push(...item);
  }
  return false;
}

/**
 * GitLab's `at_least_one_of`: refuses a request that gives none of `names`, with Grape's message naming them all in
 * the declared order.
 */
export function requireAtLeastOne<Params extends Record<string, unknown>>(params: Params, names: readonly (keyof Params & string)[]): void {
  if (names.every((name) => params[name] === undefined)) throw new ParameterError(names.join(", "), "are missing, at least one parameter must be provided");
}
