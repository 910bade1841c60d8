import { describe, expect, it } from "vitest";
import { extractPayloadFields, pathLabel, valueAtPath } from "./payload-fields";

describe("extractPayloadFields", () => {
  it("offers strings, date-like strings and arrays (then their elements), depth first, with GitLab's labels", () => {
    const payload = {
      alert: { name: "Disk full", started: "2024-05-01T10:00:00Z", count: 3, ok: false, none: null },
      targets: [{ host: "db-1" }, "web-1"],
    };
    expect(extractPayloadFields(payload)).toEqual([
      { path: ["alert", "name"], label: "alert/name", type: "string" },
      { path: ["alert", "started"], label: "alert/started", type: "datetime" },
      { path: ["targets"], label: "targets", type: "array" },
      { path: ["targets", 0, "host"], label: "targets[0]/host", type: "string" },
      { path: ["targets", 1], label: "targets[1]", type: "string" },
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

  it("is undefined when a step is missing or of the wrong kind", () => {
    expect(valueAtPath(payload, ["a", "x", 0])).toBeUndefined();
    expect(valueAtPath(payload, ["a", "b", "0"])).toBeUndefined();
    expect(valueAtPath(payload, ["a", 0])).toBeUndefined();
  });
});

describe("pathLabel", () => {
  it("writes keys with slashes and indices in brackets", () => {
    expect(pathLabel(["a", "b", 0, "c", 1])).toBe("a/b[0]/c[1]");
  });
});
