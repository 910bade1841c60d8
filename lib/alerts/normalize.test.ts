import { describe, expect, it } from "vitest";
import { eachElement } from "./fields";
import {
  epochMillisecondsFrom,
  genericSeverity,
  isAlertmanagerPayload,
  normalizeGenericPayload,
  normalizePrometheusAlert,
  parseMappedTime,
  prometheusSeverity,
  readGenericPayload,
  truncate,
  truncateHosts,
} from "./normalize";

const now = new Date("2026-01-02T03:04:05.000Z");

describe("normalizeGenericPayload", () => {
  it("applies GitLab's defaults to an empty payload", () => {
    expect(normalizeGenericPayload({}, null, now)).toEqual({
      title: "New: Alert",
      description: null,
      startedAt: now,
      endedAt: null,
      service: null,
      monitoringTool: null,
      hosts: [],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: null,
    });
  });

  it("reads every documented field", () => {
    const alert = normalizeGenericPayload(
      {
        title: "Incident title",
        description: "Something broke",
        start_time: "2019-09-12T06:00:55Z",
        service: "api",
        monitoring_tool: "Nagios",
        hosts: "db-1",
        severity: "HIGH",
        fingerprint: "d19381d4",
        gitlab_environment_name: "production",
      },
      null,
      now,
    );
    expect(alert).toEqual({
      title: "Incident title",
      description: "Something broke",
      startedAt: new Date("2019-09-12T06:00:55Z"),
      endedAt: null,
      service: "api",
      monitoringTool: "Nagios",
      hosts: ["db-1"],
      severity: "high",
      environmentName: "production",
      action: "trigger",
      fingerprintSource: "d19381d4",
    });
  });

  it("truncates title (200), description (1000), service and monitoring tool (100) with an ellipsis", () => {
    const alert = normalizeGenericPayload(
      { title: "t".repeat(250), description: "d".repeat(1200), service: "s".repeat(150), monitoring_tool: "m".repeat(101) },
      null,
      now,
    );
    expect(alert.title).toBe(`${"t".repeat(197)}...`);
    expect(alert.description).toBe(`${"d".repeat(997)}...`);
    expect(alert.service).toBe(`${"s".repeat(97)}...`);
    expect(alert.monitoringTool).toBe(`${"m".repeat(97)}...`);
  });

  it("resolves with an ISO end_time or 13-digit epoch milliseconds, and ignores an unparsable one", () => {
    expect(normalizeGenericPayload({ end_time: "2026-01-02T00:00:00Z" }, null, now)).toMatchObject({
      action: "resolve",
      endedAt: new Date("2026-01-02T00:00:00Z"),
    });
    expect(normalizeGenericPayload({ end_time: 1767225600000 }, null, now)).toMatchObject({
      action: "resolve",
      endedAt: new Date(1767225600000),
    });
    expect(normalizeGenericPayload({ end_time: 1767225600 }, null, now)).toMatchObject({ action: "trigger", endedAt: null });
    expect(normalizeGenericPayload({ end_time: "not a time" }, null, now)).toMatchObject({ action: "trigger" });
  });

  it("falls back to now for an unparsable start_time", () => {
    expect(normalizeGenericPayload({ start_time: "yesterday-ish" }, null, now).startedAt).toEqual(now);
  });

  it("fingerprints automatically on the payload minus start_time, end_time and hosts", () => {
    const first = normalizeGenericPayload({ title: "x", start_time: "2020-01-01T00:00:00Z", hosts: ["a"], extra: { k: 1 } }, null, now);
    expect(first.fingerprintSource).toEqual({ title: "x", extra: { k: 1 } });
    expect(normalizeGenericPayload({ hosts: ["a"], start_time: "2020-01-01T00:00:00Z" }, null, now).fingerprintSource).toBeNull();
  });

  it("reads mapped fields from nested paths with array indices, parsing datetimes", () => {
    const payload = {
      alert: { name: "Disk full", when: "2024-05-01T10:00:00Z", level: "low" },
      targets: [{ host: "db-1" }, { host: "db-2" }],
    };
    const alert = normalizeGenericPayload(
      payload,
      {
        title: { path: ["alert", "name"], type: "string" },
        start_time: { path: ["alert", "when"], type: "datetime" },
        severity: { path: ["alert", "level"], type: "string" },
        hosts: { path: ["targets", 1, "host"], type: "string" },
      },
      now,
    );
    expect(alert).toMatchObject({
      title: "Disk full",
      startedAt: new Date("2024-05-01T10:00:00Z"),
      severity: "low",
      hosts: ["db-2"],
    });
  });

  it("falls back to the standard key, then the default, when a mapped value is blank", () => {
    const mapping = { title: { path: ["missing"], type: "string" as const } };
    expect(normalizeGenericPayload({ title: "Standard" }, mapping, now).title).toBe("Standard");
    expect(normalizeGenericPayload({ missing: "" }, mapping, now).title).toBe("New: Alert");
  });
});

describe("extended mappings", () => {
  const each = eachElement;

  it("maps every host of an array of objects, never an object's JSON", () => {
    const payload = { items: [{ host: "web-1" }, { port: 80 }, { host: "web-2" }] };
    expect(normalizeGenericPayload(payload, { hosts: { path: ["items", each, "host"], type: "array" } }, now).hosts).toEqual(["web-1", "web-2"]);
    expect(normalizeGenericPayload(payload, { hosts: { path: ["items"], type: "array" } }, now).hosts).toEqual([]);
  });

  it("applies a value map before the field's parsing, element by element, and reports what it replaced", () => {
    const severity = { path: ["level"], type: "string" as const, values: { crit: "critical", warn: "low", "1": "high" } };
    expect(normalizeGenericPayload({ level: "warn" }, { severity }, now).severity).toBe("low");
    expect(normalizeGenericPayload({ level: 1 }, { severity: { ...severity, type: "number" } }, now).severity).toBe("high");
    // Values the map does not name pass unchanged; the map is exact.
    expect(normalizeGenericPayload({ level: "medium" }, { severity }, now).severity).toBe("medium");
    expect(normalizeGenericPayload({ level: "WARN" }, { severity }, now).severity).toBe("critical");
    const { alert, readings } = readGenericPayload(
      { items: [{ host: "a" }, { host: "b" }] },
      { hosts: { path: ["items", each, "host"], type: "array", values: { a: "alpha.example" } } },
      now,
    );
    expect(alert.hosts).toEqual(["alpha.example", "b"]);
    expect(readings.hosts).toEqual({ source: "mapping", path: ["items", each, "host"], found: ["a", "b"], replaced: [["a", "alpha.example"]] });
  });

  it("uses the fallback when the mapped path finds nothing or a blank, before the standard key", () => {
    const mapping = { service: { path: ["svc"], type: "string" as const, fallback: "checkout" } };
    expect(normalizeGenericPayload({ svc: "cart" }, mapping, now).service).toBe("cart");
    expect(normalizeGenericPayload({ svc: "  ", service: "standard" }, mapping, now).service).toBe("checkout");
    const { alert, readings } = readGenericPayload({}, mapping, now);
    expect(alert.service).toBe("checkout");
    expect(readings.service).toMatchObject({ source: "fallback", path: ["svc"], found: undefined });
    expect(readings.title).toMatchObject({ source: "default", path: null });
  });

  it("reads mapped epoch seconds and milliseconds (numbers or numeric strings) and ISO strings as times", () => {
    const at = (value: unknown) => normalizeGenericPayload({ at: value }, { start_time: { path: ["at"], type: "number" } }, now).startedAt;
    const tenOClock = new Date("2026-01-01T10:00:00Z");
    expect(at(1767261600)).toEqual(tenOClock);
    expect(at(1767261600000)).toEqual(tenOClock);
    expect(at("1767261600")).toEqual(tenOClock);
    expect(at("1767261600000")).toEqual(tenOClock);
    expect(at(1767261600.5)).toEqual(new Date("2026-01-01T10:00:00.500Z"));
    expect(at("2026-01-01T10:00:00Z")).toEqual(tenOClock);
    expect(at("not a time")).toEqual(now);
    expect(at(Number.MAX_VALUE)).toEqual(now);
    const ended = normalizeGenericPayload({ stop: "1767261600" }, { end_time: { path: ["stop"], type: "datetime" } }, now);
    expect(ended).toMatchObject({ endedAt: tenOClock, action: "resolve" });
  });

  it("tells seconds from milliseconds by magnitude: below 1e11 is seconds", () => {
    expect(epochMillisecondsFrom).toBe(1e11);
    expect(parseMappedTime(99_999_999_999)).toEqual(new Date(99_999_999_999_000));
    expect(parseMappedTime(100_000_000_000)).toEqual(new Date(100_000_000_000));
    expect(parseMappedTime(0)).toEqual(new Date(0));
    expect(parseMappedTime("")).toBeNull();
  });

  it("keeps GitLab's parsing for the standard keys when the mapping finds nothing", () => {
    const mapping = { end_time: { path: ["stop"], type: "number" as const } };
    expect(normalizeGenericPayload({ end_time: 1767261600 }, mapping, now)).toMatchObject({ endedAt: null, action: "trigger" });
  });
});

describe("severities", () => {
  it("accepts the six generic severities in any case; anything else is critical", () => {
    expect(["Critical", "high", "MEDIUM", "low", "info", "Unknown"].map(genericSeverity)).toEqual([
      "critical",
      "high",
      "medium",
      "low",
      "info",
      "unknown",
    ]);
    expect(genericSeverity("warning")).toBe("critical");
    expect(genericSeverity(3)).toBe("critical");
  });

  it("maps Prometheus synonyms as GitLab does", () => {
    expect(["s1", "P2", "error", "warning", "notice", "page", "minor", "bogus"].map(prometheusSeverity)).toEqual([
      "critical",
      "high",
      "medium",
      "low",
      "info",
      "high",
      "low",
      "critical",
    ]);
  });
});

describe("truncation helpers", () => {
  it("truncates like ActiveSupport", () => {
    expect(truncate("abcdef", 6)).toBe("abcdef");
    expect(truncate("abcdefg", 6)).toBe("abc...");
  });

  it("cuts hosts so their concatenation fits 255 characters, without an ellipsis", () => {
    const hosts = truncateHosts(["a".repeat(200), "b".repeat(100), "c"]);
    expect(hosts).toEqual(["a".repeat(200), "b".repeat(55)]);
    expect(truncateHosts(["x", "y"])).toEqual(["x", "y"]);
  });
});

describe("Alertmanager payloads", () => {
  const webhook = {
    version: "4",
    groupKey: "{}:{alertname=\"HighLatency\"}",
    status: "firing",
    receiver: "service",
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://alertmanager:9093",
    alerts: [],
  };

  it("recognises version 4 bodies with all nine keys", () => {
    expect(isAlertmanagerPayload(webhook)).toBe(true);
    expect(isAlertmanagerPayload({ ...webhook, version: 4 })).toBe(false);
    const { receiver: _receiver, ...missingKey } = webhook;
    expect(isAlertmanagerPayload(missingKey)).toBe(false);
  });

  it("reads title, description, severity, environment, status and the fingerprint source of one alert", () => {
    const alert = normalizePrometheusAlert(
      {
        status: "resolved",
        labels: { alertname: "HighLatency", severity: "warning", gitlab_environment_name: "prod" },
        annotations: { summary: "Latency is high", description: "p99 over 1s" },
        startsAt: "2026-01-01T00:00:00Z",
        endsAt: "2026-01-01T01:00:00Z",
        generatorURL: "http://prometheus/graph?g0.expr=rate%28x%5B5m%5D%29&g0.tab=1",
      },
      now,
    );
    expect(alert).toEqual({
      title: "Latency is high",
      description: "p99 over 1s",
      startedAt: new Date("2026-01-01T00:00:00Z"),
      endedAt: new Date("2026-01-01T01:00:00Z"),
      service: null,
      monitoringTool: "Prometheus",
      hosts: [],
      severity: "low",
      environmentName: "prod",
      action: "resolve",
      fingerprintSource: "2026-01-01T00:00:00Z/Latency is high/rate(x[5m])",
    });
  });

  it("rejects an alert without a title or startsAt", () => {
    expect(normalizePrometheusAlert({ labels: {}, annotations: {}, startsAt: "2026-01-01T00:00:00Z" }, now)).toBeNull();
    expect(normalizePrometheusAlert({ labels: { alertname: "X" }, annotations: {} }, now)).toBeNull();
  });
});
