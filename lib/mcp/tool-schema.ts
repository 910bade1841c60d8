import { z } from "zod";

/**
 * A tool's `inputSchema`, written from the zod declarations its REST endpoint parses with, so the schema a client
 * reads and the parsing a call meets cannot drift apart. Pure.
 */

export interface ToolInputSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
}

/**
 * Path segments arrive as text in a URL; a tool's arguments are JSON, where a client may well send a project's id or
 * an issue's iid as a number. A tool takes either, and gives the endpoint the text it would have read from the URL.
 */
export function asToolPathSegment(segment: z.core.$ZodType): z.ZodType {
  return z.union([z.number().int(), segment]);
}

/** Path segments as an endpoint reads them from a URL: integers written out as text, anything else as it came. */
export function pathSegmentsFrom(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const segments: Record<string, unknown> = {};
  for (const name of names) {
    const value = args[name];
    if (value !== undefined) segments[name] = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  }
  return segments;
}

/**
 * The JSON Schema of what `shape` takes as input (transforms and refinements apply after it), with a description for
 * each property from `descriptions`. Undeclared arguments are dropped, as the REST API drops undeclared parameters,
 * and the schema says so (`additionalProperties: false`), as GitLab's tools do.
 */
export function toolInputSchema(shape: z.ZodRawShape, descriptions: Readonly<Record<string, string>>): ToolInputSchema {
  const generated = z.toJSONSchema(z.object(shape), { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, property] of Object.entries(generated.properties ?? {})) {
    const description = descriptions[name];
    if (description === undefined) throw new Error(`parameter ${name} has no description`);
    properties[name] = { description, ...property };
  }
  return { type: "object", properties, required: generated.required ?? [], additionalProperties: false };
}
