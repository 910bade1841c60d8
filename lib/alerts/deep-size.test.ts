import { describe, expect, it } from "vitest";
import { deepSizeProblem, hashMemsize, maxPayloadDepth, maxPayloadMemory, rubyMemsizeOf } from "./deep-size";

/** `{"a":{"a":…{"a":1}}}`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe("rubyMemsizeOf", () => {
  it("gives what ObjectSpace.memsize_of gives for each JSON value on 64-bit Ruby", () => {
    // Measured with Ruby 3.1: strings up to 23 bytes in their slot, then bytes and a terminator.
    expect(["", "a", "a".repeat(23), "a".repeat(24), "a".repeat(100), "é".repeat(11), "é".repeat(12)].map(rubyMemsizeOf)).toEqual([
      40, 40, 40, 65, 141, 40, 65,
    ]);
    // Hashes: an array table up to 8 entries, then st_tables of 32, 64, 128, 256, … entries.
    expect([0, 1, 8, 9, 32, 33, 64, 65, 128, 129, 256, 257, 1000, 32768, 32769].map(hashMemsize)).toEqual([
      40, 168, 168, 928, 928, 1760, 1760, 3424, 3424, 7264, 7264, 14432, 28768, 917600, 2097248,
    ]);
    expect(rubyMemsizeOf({ a: 1, b: 2 })).toBe(168);
    // Arrays as Rails copies them: up to 3 elements in the slot, else exactly 8 bytes each.
    expect([[], [1, 2, 3], [1, 2, 3, 4], Array.from({ length: 100 }, () => 0)].map(rubyMemsizeOf)).toEqual([40, 40, 72, 840]);
    // Immediates cost nothing; bignums and floats outside the flonum range take a slot.
    expect([0, -1, 2 ** 62 - 512, 1.5, 0.1, 1e77, true, false, null].map(rubyMemsizeOf)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect([2 ** 62, 1e19, 1e78, 2 ** -256, 2 ** -255].map(rubyMemsizeOf)).toEqual([40, 40, 40, 40, 40]);
  });
});

describe("deepSizeProblem", () => {
  it("accepts 100 levels of nesting and refuses 101, as GitLab's DeepSize does", () => {
    expect(maxPayloadDepth).toBe(100);
    expect(deepSizeProblem(nested(100))).toBeNull();
    expect(deepSizeProblem(nested(101))).toBe("too_deep");
    expect(deepSizeProblem({ list: [[[[]]]] })).toBeNull();
  });

  it("refuses a payload whose parsed form takes more than 1 MB, counting every key and value", () => {
    expect(maxPayloadMemory).toBe(1024 * 1024);
    // 1 hash (40 + 56 + 32 × 24 + 64) + one 24-byte key (65) + a string of b bytes (40 + b + 1) = 1 MiB exactly.
    const fits = { [`k${"x".repeat(23)}`]: "v".repeat(1024 * 1024 - 168 - 65 - 41) };
    expect(rubyMemsizeOf(fits) + 65 + rubyMemsizeOf(Object.values(fits)[0])).toBe(1024 * 1024);
    expect(deepSizeProblem(fits)).toBeNull();
    expect(deepSizeProblem({ [`k${"x".repeat(23)}`]: "v".repeat(1024 * 1024 - 168 - 65 - 40) })).toBe("too_big");
  });

  it("refuses 116,000 keys on 90 levels in a 1 MB body at once, and accepts a large Alertmanager group", () => {
    let payload: Record<string, unknown> = {};
    for (let level = 0; level < 90; level++) {
      const object: Record<string, unknown> = { next: payload };
      for (let index = 0; index < 1289; index++) object[index.toString(36)] = 0;
      payload = object;
    }
    expect(JSON.stringify(payload).length).toBeLessThan(1024 * 1024);
    const started = performance.now();
    expect(deepSizeProblem(payload)).toBe("too_big");
    expect(performance.now() - started).toBeLessThan(200);

    const alert = (index: number) => ({
      status: "firing",
      labels: { alertname: `HighLatency${index}`, severity: "warning", instance: `web-${index}:9100`, job: "node", team: "platform" },
      annotations: { summary: "Latency is high", description: "p99 latency has been above 500ms for 10 minutes on this instance." },
      startsAt: "2026-01-01T10:00:00.000Z",
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus.example.com:9090/graph?g0.expr=histogram_quantile%280.99%2C+rate%28http_request_duration_seconds_bucket%5B5m%5D%29%29+%3E+0.5",
      fingerprint: `a1b2c3d4e5f6${index}`,
    });
    const group = {
      version: "4",
      groupKey: '{}:{alertname="HighLatency"}',
      truncatedAlerts: 0,
      status: "firing",
      receiver: "gitlab",
      groupLabels: { alertname: "HighLatency" },
      commonLabels: { job: "node", severity: "warning" },
      commonAnnotations: {},
      externalURL: "http://alertmanager.example.com:9093",
      alerts: Array.from({ length: 100 }, (_, index) => alert(index)),
    };
    expect(deepSizeProblem(group)).toBeNull();
  });
});
