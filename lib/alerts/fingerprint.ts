import "server-only";
import { createHash } from "node:crypto";
import { isBlank, isPlainObject } from "./json-values";

/**
 * Fingerprints as GitLab computes them (`Gitlab::AlertManagement::Fingerprint`), so the same payload groups the same
 * way here: SHA-1 of a canonical string. Pure: no I/O.
 */
export function fingerprintOf(value: unknown): string | null {
  if (isBlank(value)) return null;
  return sha1(canonicalString(value));
}

function canonicalString(value: unknown): string {
  if (Array.isArray(value)) return value.flat(Infinity).map(rubyToS).join("");
  if (isPlainObject(value)) return rubyInspect(Object.entries(inlineKeys(value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return rubyToS(value);
}

function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}

/** `{a: {b: 1}}` → `{"a.b": 1}`, as GitLab's SafeInlineHash does before hashing. */
function inlineKeys(object: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) Object.assign(flat, inlineKeys(value, path));
    else flat[path] = value;
  }
  return flat;
}

function rubyToS(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return rubyNumber(value);
  if (typeof value === "boolean") return String(value);
  return rubyInspect(value);
}

function rubyNumber(value: number): string {
  return Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 1e16 ? String(value) : rubyFloat(value);
}

function rubyFloat(value: number): string {
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** Ruby's `inspect` for the JSON value types. */
function rubyInspect(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return rubyNumber(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(", ")}]`;
  if (isPlainObject(value)) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}=>${rubyInspect(item)}`)
      .join(", ")}}`;
  }
  return String(value);
}
