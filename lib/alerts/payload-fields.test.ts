import { describe, expect, it } from "vitest";
import { eachElement } from "./fields";
import { extractPayloadFields, pathLabel, payloadFieldLimits, valueAtPath } from "./payload-fields";

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

  it("answers a 762 KB sample within its bounds: shallower fields first, every top-level key kept, in the payload's order", () => {
    const sample = largeSample();
    expect(JSON.stringify(sample).length).toBeGreaterThan(760_000);
    const started = performance.now();
    const fields = extractPayloadFields(sample);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(fields).toHaveLength(payloadFieldLimits.fields);
    expect(JSON.stringify(fields).length).toBeLessThanOrEqual(payloadFieldLimits.answerCharacters);
    // The top level and the keys of every alert come first; the list is then filled with alerts by index, in order.
    expect(fields.slice(0, 12).map((field) => field.label)).toEqual([
      "receiver",
      "alerts",
      "alerts[*]/status",
      "alerts[*]/labels/alertname",
      "alerts[*]/labels/instance",
      "alerts[*]/annotations/description",
      "alerts[*]/startsAt",
      "alerts[0]/status",
      "alerts[0]/labels/alertname",
      "alerts[0]/labels/instance",
      "alerts[0]/annotations/description",
      "alerts[0]/startsAt",
    ]);
    expect(fields.slice(-4).map((field) => field.label)).toEqual(["alerts[197]/startsAt", "alerts[198]/status", "commonLabels/severity", "externalURL"]);
    expect(fields.find((field) => field.label === "alerts[197]/startsAt")).toEqual({
      path: ["alerts", 197, "startsAt"],
      label: "alerts[197]/startsAt",
      type: "datetime",
    });
    expect(fields.some((field) => field.label.startsWith("alerts[199]"))).toBe(false);
  });

  it("offers no path longer than 20 steps nor any label longer than 255 characters", () => {
    let deep: Record<string, unknown> = { leaf: "x" };
    for (let level = 0; level < 30; level++) deep = { n: deep };
    const fields = extractPayloadFields({ deep, ["k".repeat(256)]: "long", ["k".repeat(255)]: "fits" });
    expect(fields.map((field) => field.path.length)).toEqual([1]);
    expect(fields[0]!.label).toHaveLength(255);
    let twenty: Record<string, unknown> = { leaf: "x" };
    for (let level = 0; level < 19 - 1; level++) twenty = { n: twenty };
    expect(extractPayloadFields({ n: twenty }).map((field) => field.path.length)).toEqual([20]);
  });
});

/** An Alertmanager group of 3,150 alerts with a few keys around it: about 762 KB of JSON. */
function largeSample(): Record<string, unknown> {
  return {
    receiver: "gitlab",
    alerts: Array.from({ length: 3150 }, (_, index) => ({
      status: "firing",
      labels: { alertname: `Alert${index}`, instance: `host-${index}.example.com:9100` },
      annotations: { description: `Instance host-${index} has been above its threshold for ten minutes now.` },
      startsAt: "2026-01-01T10:00:00.000Z",
      ok: true,
    })),
    commonLabels: { severity: "warning" },
    externalURL: "http://alertmanager.example.com",
  };
}

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

  it("reads a payload's own keys only: inherited names such as constructor, toString and __proto__ find nothing", () => {
    expect(valueAtPath({ a: {} }, ["a", "constructor"])).toBeUndefined();
    expect(valueAtPath({ a: {} }, ["a", "toString"])).toBeUndefined();
    expect(valueAtPath({}, ["__proto__"])).toBeUndefined();
    expect(valueAtPath({ items: [{}, {}] }, ["items", eachElement, "constructor"])).toEqual([]);
    expect(valueAtPath({ items: [1, 2] }, ["items", 5])).toBeUndefined();
    // A payload's own key of that name is a key like any other.
    expect(valueAtPath(JSON.parse('{"constructor": "mine", "__proto__": {"x": 1}}'), ["constructor"])).toBe("mine");
    expect(valueAtPath(JSON.parse('{"__proto__": {"x": 1}}'), ["__proto__", "x"])).toBe(1);
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
