import { isPlainObject } from "./json-values";

/**
 * GitLab's limits on an alert payload (`Gitlab::Utils::DeepSize`, checked by its alert notify services, the payload
 * field parser and every HTTP integration): at most 1 MB (`1.megabyte`) of Ruby memory once parsed, and at most 100
 * levels of objects and arrays. Beyond either, GitLab answers the receiver with a bare 400.
 */
export const maxPayloadMemory = 1024 * 1024;
export const maxPayloadDepth = 100;

export type DeepSizeProblem = "too_big" | "too_deep";

/**
 * What `Gitlab::Utils::DeepSize` finds wrong with a parsed payload, or null when it is within both limits. The size is
 * the sum of `ObjectSpace.memsize_of` over every object GitLab's copy of the payload holds (each object, key and value;
 * a key repeated in many objects counts each time), as 64-bit Ruby reports it (`rubyMemsizeOf`). Like GitLab's, the walk
 * stops at the first limit crossed, so it costs at most one visit of each value: it never recurses, whatever the depth.
 */
export function deepSizeProblem(payload: unknown): DeepSizeProblem | null {
  let size = 0;
  const pending: [value: unknown, depth: number][] = [[payload, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    size += rubyMemsizeOf(value);
    if (size > maxPayloadMemory) return "too_big";
    const entries = Array.isArray(value) ? value : isPlainObject(value) ? Object.entries(value) : null;
    if (entries === null) continue;
    const level = depth + 1;
    if (level > maxPayloadDepth) return "too_deep";
    if (Array.isArray(value)) {
      for (const item of value) pending.push([item, level]);
    } else {
      for (const [key, item] of entries as [string, unknown][]) {
        size += rubyStringMemsize(key);
        pending.push([item, level]);
      }
      if (size > maxPayloadMemory) return "too_big";
    }
  }
  return null;
}

/** Ruby's object slot on 64-bit builds: what an empty string, array or hash, a bignum or a heap float costs. */
const slot = 40;

/**
 * `ObjectSpace.memsize_of` for one JSON value as GitLab holds it (measured on Ruby 3.1, 64-bit): immediates (small
 * integers, most floats, true, false, nil) cost nothing; strings up to 23 bytes live in their slot, longer ones add
 * their bytes and a terminator; arrays are exact-sized copies (Rails' parameters) with up to 3 elements in the slot;
 * hashes up to 8 entries hold a fixed table, larger ones an `st_table` (see `hashMemsize`). Containers count
 * themselves only: their elements are counted as values of their own.
 */
export function rubyMemsizeOf(value: unknown): number {
  if (typeof value === "string") return rubyStringMemsize(value);
  if (typeof value === "number") return rubyNumberMemsize(value);
  if (Array.isArray(value)) return value.length <= 3 ? slot : slot + 8 * value.length;
  if (isPlainObject(value)) return hashMemsize(Object.keys(value).length);
  return 0;
}

function rubyStringMemsize(text: string): number {
  // Only long strings need their UTF-8 size: a string of at most 7 UTF-16 units is at most 21 bytes.
  if (text.length <= 7) return slot;
  const bytes = Buffer.byteLength(text, "utf8");
  return bytes <= 23 ? slot : slot + bytes + 1;
}

const fixnumLimit = 2 ** 62;
const bignumLimit = 2 ** 64;

/**
 * JSON does not say whether `1e20` is an integer: below 2^64 an integral number is taken as Ruby reads digits (a
 * fixnum, else a one-slot bignum), beyond as the float that such a number almost always is in a payload.
 */
function rubyNumberMemsize(value: number): number {
  if (!Number.isFinite(value)) return slot;
  if (Number.isInteger(value) && Math.abs(value) < bignumLimit) return Math.abs(value) < fixnumLimit ? 0 : slot;
  return isFlonum(value) ? 0 : slot;
}

const float = new DataView(new ArrayBuffer(8));

/** Ruby keeps a float in the reference itself when its binary exponent is within [-255, 256] (`rb_float_new_inline`). */
function isFlonum(value: number): boolean {
  float.setFloat64(0, value);
  const high = float.getUint32(0);
  const topExponentBits = (high >>> 28) & 0x7;
  const excluded = high === 0x30000000 && float.getUint32(4) === 0;
  return (topExponentBits === 3 || topExponentBits === 4) && !excluded;
}

/**
 * A hash of `entries` entries: up to 8 in a 128-byte array table, beyond that an `st_table` (56 bytes) whose entry
 * array (24 bytes each) has a power-of-two capacity of at least 32 and twice as many bins of 1, 2 or 4 bytes.
 */
export function hashMemsize(entries: number): number {
  if (entries === 0) return slot;
  if (entries <= 8) return slot + 128;
  let capacity = 32;
  while (capacity < entries) capacity *= 2;
  const binBytes = capacity <= 128 ? 1 : capacity <= 32768 ? 2 : 4;
  return slot + 56 + capacity * 24 + 2 * capacity * binBytes;
}
