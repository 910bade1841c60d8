import { describe, expect, it } from "vitest";
import { relativeTimeText } from "@/lib/time/relative";
import { alertListTabs, integrationDetailsSchema, integrationSaveSchema } from "./form-schemas";

describe("integration form schemas", () => {
  it("needs a name, a known type and a known payload format", () => {
    expect(integrationDetailsSchema.safeParse({ type: "http", name: " Pager ", active: true, payloadFormat: "pagerduty" })).toEqual({
      success: true,
      data: { type: "http", name: "Pager", active: true, payloadFormat: "pagerduty" },
    });
    const blank = integrationDetailsSchema.safeParse({ type: "http", name: "  ", active: false, payloadFormat: "auto" });
    expect(blank.success ? [] : blank.error.issues.map((issue) => issue.message)).toEqual(["Name can't be blank"]);
    expect(integrationDetailsSchema.safeParse({ type: "email", name: "x", active: false, payloadFormat: "auto" }).success).toBe(false);
    expect(integrationDetailsSchema.safeParse({ type: "http", name: "x", active: false, payloadFormat: "no-such-format" }).success).toBe(false);
  });

  it("needs a heartbeat's interval, and holds both its settings to their ranges", () => {
    const heartbeat = { type: "heartbeat", name: "Backup", active: true, payloadFormat: "auto" };
    const messages = (input: object) => {
      const result = integrationDetailsSchema.safeParse(input);
      return result.success ? [] : result.error.issues.map((issue) => [issue.path.join("."), issue.message]);
    };
    expect(integrationDetailsSchema.safeParse({ ...heartbeat, heartbeatIntervalSeconds: 60, heartbeatGraceSeconds: 0 })).toEqual({
      success: true,
      data: { ...heartbeat, heartbeatIntervalSeconds: 60, heartbeatGraceSeconds: 0 },
    });
    expect(messages(heartbeat)).toEqual([["heartbeatIntervalSeconds", "Interval can't be blank"]]);
    expect(messages({ ...heartbeat, heartbeatIntervalSeconds: 59, heartbeatGraceSeconds: 604_801 })).toEqual([
      ["heartbeatIntervalSeconds", "Interval must be at least 60 seconds"],
      ["heartbeatGraceSeconds", "Grace period must be at most 604800 seconds"],
    ]);
    expect(messages({ ...heartbeat, heartbeatIntervalSeconds: 90.5 })).toEqual([["heartbeatIntervalSeconds", "Interval must be a whole number of seconds"]]);
    // Other types need no interval.
    expect(integrationSaveSchema.safeParse({ type: "http", name: "x", active: true, payloadFormat: "auto" }).success).toBe(true);
  });

  it("accepts a mapping only in GitLab's stored format", () => {
    const valid = { type: "http", name: "x", active: true, payloadFormat: "auto", payloadAttributeMapping: { title: { path: ["alert", "name"], type: "string" } } };
    expect(integrationSaveSchema.safeParse(valid).success).toBe(true);
    expect(integrationSaveSchema.safeParse({ ...valid, payloadAttributeMapping: { colour: { path: ["a"], type: "string" } } }).success).toBe(false);
    expect(integrationSaveSchema.safeParse({ ...valid, payloadAttributeMapping: { title: { path: [], type: "string" } } }).success).toBe(false);
  });

  it("accepts the extended mapping: wildcard segments, numbers, value maps and fallbacks", () => {
    const base = { type: "http", name: "x", active: true, payloadFormat: "auto" };
    const extended = {
      hosts: { path: ["items", { each: true }, "host"], type: "array", label: "items[*]/host" },
      severity: { path: ["level"], type: "string", values: { crit: "critical", P1: "critical" }, fallback: "low" },
      start_time: { path: ["at"], type: "number" },
    };
    expect(integrationSaveSchema.safeParse({ ...base, payloadAttributeMapping: extended }).success).toBe(true);
    const rejects = (mapped: unknown) => integrationSaveSchema.safeParse({ ...base, payloadAttributeMapping: { hosts: mapped } }).success;
    expect(rejects({ path: ["items", { each: false }], type: "array" })).toBe(false);
    expect(rejects({ path: ["items", { any: true }], type: "array" })).toBe(false);
    expect(rejects({ path: ["h"], type: "array", values: { "": "x" } })).toBe(false);
    expect(rejects({ path: ["h"], type: "array", values: { a: " " } })).toBe(false);
    expect(rejects({ path: ["h"], type: "array", fallback: 3 })).toBe(false);
  });

  it("has GitLab's list tabs; All alerts leaves ignored ones out", () => {
    expect(alertListTabs.map((tab) => [tab.label, tab.statuses])).toEqual([
      ["Open", ["triggered", "acknowledged"]],
      ["Triggered", ["triggered"]],
      ["Acknowledged", ["acknowledged"]],
      ["Resolved", ["resolved"]],
      ["All alerts", ["triggered", "acknowledged", "resolved"]],
    ]);
  });
});

describe("relativeTimeText", () => {
  const now = new Date("2026-03-01T12:00:00Z");
  it.each([
    ["2026-03-01T11:59:50Z", "just now"],
    ["2026-03-01T11:58:00Z", "2 minutes ago"],
    ["2026-03-01T09:00:00Z", "3 hours ago"],
    ["2026-02-28T12:00:00Z", "yesterday"],
    ["2026-02-15T12:00:00Z", "2 weeks ago"],
    ["2025-01-01T00:00:00Z", "last year"],
    ["2026-03-01T14:00:00Z", "in 2 hours"],
  ])("%s → %s", (time, text) => {
    expect(relativeTimeText(new Date(time), now)).toBe(text);
  });
});
