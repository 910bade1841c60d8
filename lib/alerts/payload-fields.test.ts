import { describe, expect, it } from "vitest";
import { eachElement } from "./fields";
import { extractPayloadFields, pathLabel, valueAtPath } from "./payload-fields";

describe("extractPayloadFields", () => {
  it("offers strings, date-like strings, numbers and arrays (then every key of their objects, then each element), depth first", () => {
    const payload = {
      alert: { name: "Disk full", started: "2024-05-01T10:00:00Z", count: 3, ok: false, none: null },
      targets: [{ host: "db-1" }, "web-1"],
    };
    expect(extractPayloadFields(payload)).toEqual([
      { path: ["alert", "name"], label: "alert/name", type: "string" },
      { path: ["alert", "started"], label: "alert/started", type: "datetime" },
      { path: ["alert", "count"], label: "alert/count", type: "number" },
      { path: ["targets"], label: "targets", type: "array" },
      { path: ["targets", eachElement, "host"], label: "targets[*]/host", type: "array" },
      { path: ["targets", 0, "host"], label: "targets[0]/host", type: "string" },
      { path: ["targets", 1], label: "targets[1]", type: "string" },
    ]);
  });

  it("offers each key found in any element of an array of objects once, as an array, nested arrays too", () => {
    const payload = { items: [{ host: "a", tags: [{ name: "x" }] }, { host: "b", port: 80 }] };
    expect(extractPayloadFields(payload).filter((field) => field.path[1] === eachElement)).toEqual([
      { path: ["items", eachElement, "host"], label: "items[*]/host", type: "array" },
      { path: ["items", eachElement, "tags"], label: "items[*]/tags", type: "array" },
      { path: ["items", eachElement, "tags", eachElement, "name"], label: "items[*]/tags[*]/name", type: "array" },
      { path: ["items", eachElement, "port"], label: "items[*]/port", type: "array" },
    ]);
  });

  it("labels keys that contain path syntax in quotes, so each label names one path", () => {
    const fields = extractPayloadFields({ "a/b": "1", a: { b: "2", "c.d": "3" }, "*": "4", "": "5" });
    expect(fields.map((field) => [field.path, field.label])).toEqual([
      [["a/b"], '"a/b"'],
      [["a", "b"], "a/b"],
      [["a", "c.d"], 'a/"c.d"'],
      [["*"], '"*"'],
      [[""], '""'],
    ]);
  });

  it("offers nothing for an empty payload", () => {
    expect(extractPayloadFields({})).toEqual([]);
  });
});

describe("valueAtPath", () => {
  const payload = { a: { b: [{ c: "deep" }] } };

  it("digs through objects and array indices", () => {
    expect(valueAtPath(payload, ["a", "b", 0, "c"])).toBe("deep");
  });

  it("reads a path through every element of an array as the list of what it finds", () => {
    const items = { items: [{ host: "a" }, { port: 1 }, { host: "b" }, "loose"] };
    expect(valueAtPath(items, ["items", eachElement, "host"])).toEqual(["a", "b"]);
    expect(valueAtPath({ items: "not a list" }, ["items", eachElement, "host"])).toBeUndefined();
    const nested = { groups: [{ hosts: [{ name: "a" }, { name: "b" }] }, { hosts: [{ name: "c" }] }] };
    expect(valueAtPath(nested, ["groups", eachElement, "hosts", eachElement, "name"])).toEqual(["a", "b", "c"]);
    expect(valueAtPath({ "*": "star", items: [] }, ["*"])).toBe("star");
  });

  it("is undefined when a step is missing or of the wrong kind", () => {
    expect(valueAtPath(payload, ["a", "x", 0])).toBeUndefined();
    expect(valueAtPath(payload, ["a", "b", "0"])).toBeUndefined();
    expect(valueAtPath(payload, ["a", 0])).toBeUndefined();
  });
});

describe("pathLabel", () => {
  it("writes keys with slashes and indices in brackets", () => {
    expect(pathLabel(["a", "b", 0, "c", 1])).toBe("a/b[0]/c[1]");
    expect(pathLabel(["items", eachElement, "host"])).toBe("items[*]/host");
  });
});
