import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fingerprintOf, maxInlinedPathCharacters } from "./fingerprint";
import { isBlank, isPlainObject } from "./json-values";

describe("fingerprintOf", () => {
  it("hashes a string fingerprint with SHA-1, as GitLab stores `fingerprint: \"testing\"`", () => {
    expect(fingerprintOf("testing")).toBe("dc724af18fbdd4e59189f5fe768a5f8311527050");
  });

  it("joins a (nested) array without separators before hashing", () => {
    // SHA-1 of "ab1"
    expect(fingerprintOf(["a", ["b", 1]])).toBe("e175ea4ce0a553260a14bc5e922a935b40425c1e");
  });

  it("hashes an object as its sorted, dot-joined key/value pairs in Ruby's inspect form", () => {
    // SHA-1 of '[["a.b", "x"], ["c", 1], ["d", nil]]'
    expect(fingerprintOf({ d: null, c: 1, a: { b: "x" } })).toBe("eba421f58136dfc920f5ef6f1d919b729064bc67");
  });

  it("gives the same fingerprint whatever the key order", () => {
    expect(fingerprintOf({ a: 1, b: { c: 2 } })).toBe(fingerprintOf({ b: { c: 2 }, a: 1 }));
  });

  it("has no fingerprint for blank values", () => {
    for (const blank of ["", "  ", [], {}, null, false]) expect(fingerprintOf(blank)).toBeNull();
  });

  it("writes arrays and objects inside values in Ruby's inspect form, and large numbers as floats", () => {
    expect(fingerprintOf({ x: -0, n: 1e16, list: [1, 2.5, "x", null, true, { k: [3e20] }] })).toBe(
      sha1('[["list", [1, 2.5, "x", nil, true, {"k"=>[300000000000000000000.0]}]], ["n", 10000000000000000.0], ["x", 0.0]]'),
    );
  });

  it("lets the later of two values with the same dotted path win, as GitLab's merge of keys does", () => {
    expect(fingerprintOf({ "a.b": 1, a: { b: 2 } })).toBe(sha1('[["a.b", 2]]'));
    expect(fingerprintOf({ a: { b: 2 }, "a.b": 1 })).toBe(sha1('[["a.b", 1]]'));
  });

  it("gives every payload of a varied corpus the fingerprint it had before fingerprints were computed in one pass", () => {
    const random = seededRandom(20260101);
    for (let sample = 0; sample < 400; sample++) {
      const payload = randomJson(random, 0);
      expect(fingerprintOf(payload), JSON.stringify(payload)).toBe(previousFingerprintOf(payload));
    }
    for (const payload of corpus) expect(fingerprintOf(payload), JSON.stringify(payload)).toBe(previousFingerprintOf(payload));
  });

  it("takes a payload of 116,000 keys on 90 levels in one pass (it took seconds when each level copied the keys below it)", () => {
    const payload = wideAndDeep(90, 1289);
    const started = performance.now();
    const fingerprint = fingerprintOf(payload);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(fingerprint).toMatch(/^[0-9a-f]{40}$/);
    expect(fingerprintOf(wideAndDeep(90, 1289))).toBe(fingerprint);
  });

  it("hashes an object whose dotted paths would multiply into gigabytes in its nested form, quickly and repeatably", () => {
    // 99 keys of 5,000 characters above 4,000 values: every value's path would repeat the 495,000 characters above it.
    const build = () => {
      let payload: Record<string, unknown> = Object.fromEntries(Array.from({ length: 4000 }, (_, index) => [`v${index}`, index]));
      for (let level = 0; level < 99; level++) payload = { [`${level}`.padEnd(5000, "k")]: payload };
      return payload;
    };
    const started = performance.now();
    const fingerprint = fingerprintOf(build());
    expect(performance.now() - started).toBeLessThan(1500);
    expect(fingerprintOf(build())).toBe(fingerprint);
    expect(fingerprint).not.toBe(fingerprintOf({ ...build(), other: 1 }));
  });

  it("keeps the dotted form up to the bound, and the nested form with its keys sorted beyond it", () => {
    const key = "k".repeat(1024);
    const underBound = { [key]: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`${index}`, index])) };
    expect(fingerprintOf(underBound)).toBe(previousFingerprintOf(underBound));
    const leaves = Math.ceil(maxInlinedPathCharacters / (key.length + 6)) + 1;
    const overBound = { [key]: Object.fromEntries(Array.from({ length: leaves }, (_, index) => [`${index}`.padStart(5, "0"), 1])) };
    const nested = `{${JSON.stringify(key)}=>{${Array.from({ length: leaves }, (_, index) => `"${`${index}`.padStart(5, "0")}"=>1`).join(", ")}}}`;
    expect(fingerprintOf(overBound)).toBe(sha1(nested));
  });
});

function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}

/** `levels` nested objects, each with `keys` short keys beside the next level. */
function wideAndDeep(levels: number, keys: number): Record<string, unknown> {
  let payload: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const object: Record<string, unknown> = {};
    for (let index = 0; index < keys; index++) object[index.toString(36)] = index;
    object.next = payload;
    payload = object;
  }
  return payload;
}

const corpus: unknown[] = [
  { title: "Disk full", service: "db", extra: { region: "eu", tags: ["a", "b"] } },
  { "": { a: 1 }, b: { "": 2 } },
  { __proto__: 1, title: "x" },
  JSON.parse('{"__proto__": {"a": 1}, "b": 2}'),
  JSON.parse('{"__proto__": [1, 2], "b": 2}'),
  { 10: "ten", 9: "nine", a: { 1: "one" } },
  { "é": "accent", "日本": { "語": true }, emoji: "🚨" },
  { numbers: [0, -1, 1.5, 1e21, 1e-7, 12345678901234567, -0] },
  { nested: [[["deep"]], { inside: [{ more: null }] }] },
  ["a", ["b", [1, { c: 2 }]], null, true],
  "plain",
  42,
  { a: { b: { c: {} } }, d: {} },
];

function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const keyPool = ["a", "b", "a.b", "c", "", "10", "2", "x.y.z", "é", "title", "__proto__", "constructor", "k k"];

function randomJson(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth > 4 || pick < 0.35) {
    const scalars = [null, true, false, 0, -3, 2.5, 1e22, "text", "", "quote\"d", "ü"];
    return scalars[Math.floor(random() * scalars.length)];
  }
  if (pick < 0.55) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
  const object: Record<string, unknown> = {};
  const size = Math.floor(random() * 5);
  for (let index = 0; index < size; index++) {
    Object.defineProperty(object, keyPool[Math.floor(random() * keyPool.length)]!, {
      value: randomJson(random, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

// The fingerprint as it was computed before it became one pass: recursive, copying each level's keys into its parent.
// Kept here as the reference that stored alerts' fingerprints were made with.
function previousFingerprintOf(value: unknown): string | null {
  if (isBlank(value)) return null;
  return sha1(previousCanonicalString(value));
}

function previousCanonicalString(value: unknown): string {
  if (Array.isArray(value)) return value.flat(Infinity).map(previousToS).join("");
  if (isPlainObject(value)) return previousInspect(Object.entries(previousInlineKeys(value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return previousToS(value);
}

function previousInlineKeys(object: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) Object.assign(flat, previousInlineKeys(value, path));
    else flat[path] = value;
  }
  return flat;
}

function previousToS(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return previousNumber(value);
  if (typeof value === "boolean") return String(value);
  return previousInspect(value);
}

function previousNumber(value: number): string {
  if (Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 1e16) return String(value);
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

function previousInspect(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return previousNumber(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(previousInspect).join(", ")}]`;
  if (isPlainObject(value)) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}=>${previousInspect(item)}`)
      .join(", ")}}`;
  }
  return String(value);
}
