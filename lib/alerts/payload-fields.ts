import { isPlainObject } from "./json-values";
import type { PayloadFieldType, PayloadPath } from "./fields";

export interface PayloadField {
  path: PayloadPath;
  label: string;
  type: PayloadFieldType;
}

/**
 * The fields of a sample payload a mapping can point at (GitLab's AlertPayloadFieldExtractor): strings (as
 * `datetime` when they start with four digits) and arrays (themselves, then each element by index). Numbers,
 * booleans and null are not offered. Pure.
 */
export function extractPayloadFields(payload: Record<string, unknown>): PayloadField[] {
  const fields: PayloadField[] = [];
  const visit = (value: unknown, path: PayloadPath) => {
    if (typeof value === "string") {
      fields.push({ path, label: pathLabel(path), type: /^\d{4}/.test(value) ? "datetime" : "string" });
    } else if (Array.isArray(value)) {
      fields.push({ path, label: pathLabel(path), type: "array" });
      value.forEach((item, index) => visit(item, [...path, index]));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  visit(payload, []);
  return fields;
}

/** `["a", "b", 0, "c"]` → `a/b[0]/c`. */
export function pathLabel(path: PayloadPath): string {
  return path.reduce<string>((label, segment) => {
    if (typeof segment === "number") return `${label}[${segment}]`;
    return label === "" ? segment : `${label}/${segment}`;
  }, "");
}

/** The value at a path, like Ruby's `dig`; undefined when any step is missing. */
export function valueAtPath(payload: unknown, path: PayloadPath): unknown {
  let current: unknown = payload;
  for (const segment of path) {
    if (typeof segment === "number") {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      if (!isPlainObject(current)) return undefined;
      current = current[segment];
    }
  }
  return current;
}
