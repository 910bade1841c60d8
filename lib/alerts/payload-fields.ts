import { isPlainObject } from "./json-values";
import { eachElement, isEachElement, type PathSegment, type PayloadFieldType, type PayloadPath } from "./fields";

export interface PayloadField {
  path: PayloadPath;
  label: string;
  type: PayloadFieldType;
}

/**
 * The fields of a sample payload a mapping can point at (GitLab's AlertPayloadFieldExtractor, extended): strings (as
 * `datetime` when they start with four digits), numbers (epoch times, numeric levels), and arrays: the array itself,
 * then — when it holds objects — every key found in them across all elements (`items[*]/host`, an array), then each
 * element by index. Booleans and null are not offered. Pure.
 */
export function extractPayloadFields(payload: Record<string, unknown>): PayloadField[] {
  const fields: PayloadField[] = [];
  const offered = new Set<string>();
  const offer = (path: PayloadPath, type: PayloadFieldType) => {
    const key = JSON.stringify(path);
    if (offered.has(key)) return;
    offered.add(key);
    fields.push({ path, label: pathLabel(path), type });
  };
  const visit = (value: unknown, path: PayloadPath, underEach: boolean) => {
    if (typeof value === "string") {
      offer(path, underEach ? "array" : /^\d{4}/.test(value) ? "datetime" : "string");
    } else if (typeof value === "number" && Number.isFinite(value)) {
      offer(path, underEach ? "array" : "number");
    } else if (Array.isArray(value)) {
      offer(path, "array");
      const objects = value.filter(isPlainObject);
      for (const item of objects) visit(item, [...path, eachElement], true);
      if (!underEach) value.forEach((item, index) => visit(item, [...path, index], false));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key], underEach);
    }
  };
  visit(payload, [], false);
  return fields;
}

/** Keys that would read as path syntax, or as nothing, are quoted so every label names one path. */
const plainKey = /^[^/.[\]"*\s]+$/;

function keyLabel(key: string): string {
  return plainKey.test(key) ? key : JSON.stringify(key);
}

function segmentLabel(segment: PathSegment): string {
  if (isEachElement(segment)) return "[*]";
  return typeof segment === "number" ? `[${segment}]` : keyLabel(segment);
}

/** `["a", "b", 0, "c"]` → `a/b[0]/c`; `["items", {each: true}, "host"]` → `items[*]/host`; `["a/b"]` → `"a/b"`. */
export function pathLabel(path: PayloadPath): string {
  return path.reduce<string>((label, segment) => {
    const part = segmentLabel(segment);
    if (typeof segment !== "string" || label === "") return label + part;
    return `${label}/${part}`;
  }, "");
}

/**
 * The value at a path, like Ruby's `dig`; undefined when any step is missing. An `{each: true}` step reads the rest
 * of the path in every element and yields the list of what was found (nested lists flattened, misses dropped).
 */
export function valueAtPath(payload: unknown, path: PayloadPath): unknown {
  let current: unknown = payload;
  for (const [index, segment] of path.entries()) {
    if (isEachElement(segment)) {
      if (!Array.isArray(current)) return undefined;
      const rest = path.slice(index + 1);
      return current
        .map((item) => valueAtPath(item, rest))
        .flatMap((found) => (Array.isArray(found) && rest.some(isEachElement) ? found : [found]))
        .filter((found) => found !== undefined);
    }
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
