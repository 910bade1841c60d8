import { describe, expect, it } from "vitest";
import { displayedJson, jsonPreview } from "./json-values";

describe("displayedJson", () => {
  it("indents a payload whose indented form fits the limit, exactly as JSON.stringify does", () => {
    const payload = { a: [1, { b: "x", c: [] }], d: {}, e: null, "k\"": [[2]] };
    const indented = JSON.stringify(payload, null, 2);
    expect(displayedJson(payload, indented.length)).toBe(indented);
    expect(displayedJson(payload, indented.length - 1)).toBe(JSON.stringify(payload));
  });

  it("shows a deep payload of many small values on one line rather than indenting it many times over", () => {
    let payload: unknown = Array.from({ length: 50_000 }, () => 0);
    for (let level = 0; level < 99; level++) payload = [payload];
    const started = performance.now();
    const shown = displayedJson(payload, 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(shown).toBe(JSON.stringify(payload));
  });
});

describe("jsonPreview", () => {
  it("starts as the value's JSON and writes no more than a glance needs", () => {
    expect(jsonPreview({ a: [1, "x", null, true], b: { c: 2 } }, 100)).toBe('{"a":[1,"x",null,true],"b":{"c":2}}');
    const long = { text: "y".repeat(1_000_000), rest: Array.from({ length: 100_000 }, (_, index) => ({ index })) };
    const preview = jsonPreview(long, 40);
    expect(JSON.stringify(long).startsWith(preview.slice(0, 40))).toBe(true);
    expect(preview.length).toBeLessThan(100);
    expect(jsonPreview(Array.from({ length: 100_000 }, (_, index) => index), 10)).toBe("[0,1,2,3,4,");
  });
});
