import "server-only";
import { createHash, type Hash } from "node:crypto";
import { isBlank, isPlainObject } from "./json-values";

/**
 * Fingerprints as GitLab computes them (`Gitlab::AlertManagement::Fingerprint`), so the same payload groups the same
 * way here: SHA-1 of a canonical string. Pure: no I/O.
 *
 * The canonical string is written straight into the hash, each value once, so the cost is the length of that string
 * and never a copy per level of nesting. An object's string names every value by its whole dotted path, which for a
 * long chain of keys above many values grows with their product; past `maxInlinedPathCharacters` such an object is
 * hashed as its nested form instead (`writeNestedObject`), which is as long as the object itself.
 */
export function fingerprintOf(value: unknown): string | null {
  if (isBlank(value)) return null;
  const hash = createHash("sha1");
  const writer = new HashWriter(hash);
  if (Array.isArray(value)) writeFlattenedArray(value, writer);
  else if (isPlainObject(value)) writeObject(value, writer);
  else writer.write(rubyToS(value));
  writer.end();
  return hash.digest("hex");
}

/**
 * The dotted paths of an object's values may add up to this many characters before the object is hashed in its nested
 * form: sixteen times the largest body the receiver reads, so only payloads built to multiply their keys get there.
 */
export const maxInlinedPathCharacters = 16 * 1024 * 1024;

/** Collects the canonical string in pieces and hands the hash large chunks, so small writes cost no call each. */
class HashWriter {
  private buffered = "";
  constructor(private readonly hash: Hash) {}

  write(text: string): void {
    this.buffered += text;
    if (this.buffered.length >= 65_536) this.flush();
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.buffered === "") return;
    this.hash.update(this.buffered, "utf8");
    this.buffered = "";
  }
}

/** `array.flatten.map(&:to_s).join`: nested arrays in order, without separators; objects in Ruby's inspect form. */
function writeFlattenedArray(array: unknown[], writer: HashWriter): void {
  const pending: unknown[] = [...array].reverse();
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) pending.push(item[index]);
    } else {
      writeToS(item, writer);
    }
  }
}

function writeToS(value: unknown, writer: HashWriter): void {
  if (Array.isArray(value) || isPlainObject(value)) writeInspect(value, writer);
  else writer.write(rubyToS(value));
}

/**
 * An object as GitLab hashes it: `{a: {b: 1}}` → `{"a.b": 1}` (SafeInlineHash), pairs sorted by key, in Ruby's inspect
 * form (`[["a.b", 1]]`). When two paths meet (`{"a.b": 1, "a": {"b": 2}}`) the later value wins.
 */
function writeObject(object: Record<string, unknown>, writer: HashWriter): void {
  if (inlinedPathCharacters(object) > maxInlinedPathCharacters) {
    writeNestedObject(object, writer);
    return;
  }
  const inlined = new Map<string, unknown>();
  // Depth first, in each object's key order, as GitLab's merge goes: of two values with one path, the later wins.
  const stack: { prefix: string; entries: [string, unknown][]; next: number }[] = [{ prefix: "", entries: Object.entries(object), next: 0 }];
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.next === frame.entries.length) {
      stack.pop();
      continue;
    }
    const [key, value] = frame.entries[frame.next++]!;
    const path = frame.prefix ? `${frame.prefix}.${key}` : key;
    if (isPlainObject(value)) stack.push({ prefix: path, entries: Object.entries(value), next: 0 });
    // Fingerprints have always been taken without a top-level `__proto__` that holds no object (assigning it sets an
    // object's prototype instead); leaving it out keeps those payloads grouping with their earlier alerts.
    else if (path !== "__proto__") inlined.set(path, value);
  }
  const pairs = [...inlined].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  writer.write("[");
  pairs.forEach(([path, value], index) => {
    writer.write(`${index > 0 ? ", " : ""}[${JSON.stringify(path)}, `);
    writeInspect(value, writer);
    writer.write("]");
  });
  writer.write("]");
}

/** The total length of an object's dotted value paths, counted without building them. */
function inlinedPathCharacters(object: Record<string, unknown>): number {
  let total = 0;
  const pending: [prefixLength: number, value: Record<string, unknown>][] = [[0, object]];
  while (pending.length > 0) {
    const [prefixLength, current] = pending.pop()!;
    for (const [key, value] of Object.entries(current)) {
      const length = prefixLength === 0 ? key.length : prefixLength + 1 + key.length;
      if (isPlainObject(value)) pending.push([length, value]);
      else total += length;
    }
    if (total > maxInlinedPathCharacters) break;
  }
  return total;
}

/** An object in Ruby's inspect form with every level's keys sorted: the same for the same payload, as long as it is. */
function writeNestedObject(object: Record<string, unknown>, writer: HashWriter): void {
  writeInspect(object, writer, true);
}

function rubyToS(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return rubyNumber(value);
  if (typeof value === "boolean") return String(value);
  return String(value);
}

function rubyNumber(value: number): string {
  return Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 1e16 ? String(value) : rubyFloat(value);
}

function rubyFloat(value: number): string {
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

function rubyScalarInspect(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return rubyNumber(value);
  return String(value);
}

/** Ruby's `inspect` for the JSON value types, written piece by piece without recursion. */
function writeInspect(root: unknown, writer: HashWriter, sortKeys = false): void {
  // Each entry is a value to inspect, or text to write as it is (separators and closing brackets).
  const pending: ({ text: string } | { value: unknown })[] = [{ value: root }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if ("text" in next) {
      writer.write(next.text);
      continue;
    }
    const { value } = next;
    if (Array.isArray(value)) {
      writer.write("[");
      pending.push({ text: "]" });
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index] });
        if (index > 0) pending.push({ text: ", " });
      }
    } else if (isPlainObject(value)) {
      writer.write("{");
      pending.push({ text: "}" });
      const keys = sortKeys ? Object.keys(value).sort() : Object.keys(value);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        pending.push({ value: value[key] });
        pending.push({ text: `${index > 0 ? ", " : ""}${JSON.stringify(key)}=>` });
      }
    } else {
      writer.write(rubyScalarInspect(value));
    }
  }
}
