import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  anchoredPattern,
  equalitiesOf,
  formatMatcher,
  nextWindowAfter,
  openWindowAt,
  parseMatcher,
  parseMatchers,
  SilenceRuleError,
  silenceStateAt,
  splitMatchers,
  validRecurrence,
  zonedInstant,
  type SilenceWindow,
  type WeeklyRecurrence,
} from "./silence-rules";

function ruleError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof SilenceRuleError) return error.message;
    throw error;
  }
  throw new Error("no SilenceRuleError");
}

describe("the matcher language", () => {
  it("reads each operator, quoted and unquoted values, escapes and payload paths", () => {
    expect(parseMatcher('severity="critical"')).toEqual({ name: "severity", op: "=", value: "critical" });
    expect(parseMatcher('service != "db"')).toEqual({ name: "service", op: "!=", value: "db" });
    expect(parseMatcher('title=~"Disk .*"')).toEqual({ name: "title", op: "=~", value: "Disk .*" });
    expect(parseMatcher("host!~web-[0-9]+")).toEqual({ name: "host", op: "!~", value: "web-[0-9]+" });
    expect(parseMatcher('payload.labels.team="a \\"b\\" \\\\ c\\nd"')).toEqual({ name: "payload.labels.team", op: "=", value: 'a "b" \\ c\nd' });
    expect(parseMatcher('integration=""')).toEqual({ name: "integration", op: "=", value: "" });
    // Other escapes stay as written, so patterns read as they are typed.
    expect(parseMatcher('title=~"disk\\d+ \\.x"')).toEqual({ name: "title", op: "=~", value: "disk\\d+ \\.x" });
  });

  it("splits lists at commas and line breaks outside quotes, with or without braces", () => {
    expect(splitMatchers('{service="db", title=~"a,b"}')).toEqual(['service="db"', 'title=~"a,b"']);
    expect(splitMatchers('service="db"\n\nseverity="high"\n')).toEqual(['service="db"', 'severity="high"']);
    expect(parseMatchers(['service="db"', 'environment="prod",monitoring_tool="Zabbix"'])).toEqual([
      { name: "service", op: "=", value: "db" },
      { name: "environment", op: "=", value: "prod" },
      { name: "monitoring_tool", op: "=", value: "Zabbix" },
    ]);
  });

  it("writes matchers back canonically, so they read the same again", () => {
    const matcher = { name: "title", op: "=~" as const, value: 'a "q" \\d\n' };
    expect(formatMatcher(matcher)).toBe('title=~"a \\"q\\" \\\\d\\n"');
    expect(parseMatcher(formatMatcher(matcher))).toEqual(matcher);
  });

  it("refuses bad matchers, naming them", () => {
    expect(ruleError(() => parseMatcher('team="a"'))).toBe(
      'matcher "team=\\"a\\"" names no alert field: use integration, service, environment, severity, title, monitoring_tool, host or payload.<path>',
    );
    expect(ruleError(() => parseMatcher("service"))).toBe('matcher "service" is not of the form name="value" (with =, !=, =~ or !~)');
    expect(ruleError(() => parseMatcher('service="db'))).toBe('matcher "service=\\"db" has a value with an unterminated quote');
    expect(ruleError(() => parseMatcher('service=d"b'))).toBe('matcher "service=d\\"b" has a value with an unterminated quote');
    expect(ruleError(() => parseMatcher("payload.=x"))).toContain("names no alert field");
    expect(ruleError(() => parseMatchers([]))).toBe("matchers: at least one matcher is needed");
    expect(ruleError(() => parseMatchers(Array.from({ length: 17 }, (_, i) => `service="${i}"`)))).toBe("matchers: at most 16 matchers are allowed");
    expect(ruleError(() => parseMatcher(`title="${"x".repeat(1100)}"`))).toContain("is longer than 1024 characters");
  });

  it("refuses patterns that would leave the automaton or break out of their anchors", () => {
    expect(ruleError(() => parseMatcher('title=~"(a)\\1"'))).toContain("back-references are not supported");
    expect(ruleError(() => parseMatcher('title=~"a(?=b)"'))).toContain("lookahead and lookbehind are not supported");
    expect(ruleError(() => parseMatcher('title=~"a(?<!b)"'))).toContain("lookahead and lookbehind are not supported");
    expect(ruleError(() => parseMatcher('title=~"a(?s)b"'))).toContain("embedded options other than a leading (?i)");
    expect(ruleError(() => parseMatcher('title=~"a)|(b"'))).toContain("unbalanced parentheses or brackets");
    expect(ruleError(() => parseMatcher(`title=~"${"a".repeat(257)}"`))).toContain("longer than 256 characters");
    expect(parseMatcher('title=~"(?i)disk.*"').value).toBe("(?i)disk.*");
  });

  it("gathers the equalities on one-valued fields, a condition every matched alert meets", () => {
    const matchers = parseMatchers(['service="db"', 'severity!="low"', 'host="db-1"', 'integration="Monitor"', 'title=~"Disk.*"', 'environment=""']);
    expect(equalitiesOf(matchers)).toEqual({ service: "db", environment: "" });
  });

  it("anchors patterns at both ends, keeping a leading (?i) first", () => {
    expect(anchoredPattern("db|web")).toBe("^(?:db|web)$");
    expect(anchoredPattern("(?i)db")).toBe("(?i)^(?:db)$");
  });
});

describe("recurrences", () => {
  it("are validated: days, times of day and a known time zone", () => {
    const good: WeeklyRecurrence = { days: ["fri", "mon", "mon"], start_time: "22:00", end_time: "06:00", time_zone: "Europe/Berlin" };
    expect(validRecurrence(good)).toEqual({ ...good, days: ["mon", "fri"] });
    expect(ruleError(() => validRecurrence({ ...good, days: [] }))).toBe("recurrence: days needs at least one day");
    expect(ruleError(() => validRecurrence({ ...good, days: ["monday" as never] }))).toBe('recurrence: "monday" is not one of sun, mon, tue, wed, thu, fri, sat');
    expect(ruleError(() => validRecurrence({ ...good, start_time: "24:00" }))).toBe("recurrence: start_time must be a time of day as HH:MM (00:00 to 23:59)");
    expect(ruleError(() => validRecurrence({ ...good, time_zone: "Mars/Olympus" }))).toBe('recurrence: "Mars/Olympus" is not a known time zone');
  });
});

describe("windows", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Sets the fake clock and answers it. */
  const at = (iso: string) => {
    vi.setSystemTime(new Date(iso));
    return new Date();
  };
  const weekly = (recurrence: WeeklyRecurrence): SilenceWindow => ({ startsAt: null, endsAt: null, recurrence });

  it("a one-off window is pending, active from its start, expired at its end", () => {
    const window: SilenceWindow = { startsAt: new Date("2026-05-01T10:00:00Z"), endsAt: new Date("2026-05-01T12:00:00Z"), recurrence: null };
    expect(silenceStateAt(window, at("2026-05-01T09:59:59Z"))).toBe("pending");
    expect(silenceStateAt(window, at("2026-05-01T10:00:00Z"))).toBe("active");
    expect(openWindowAt(window, at("2026-05-01T11:59:59Z"))).toEqual({ start: window.startsAt, end: window.endsAt });
    expect(silenceStateAt(window, at("2026-05-01T12:00:00Z"))).toBe("expired");
  });

  it("a weekly window spanning midnight is open from its start day's evening into the next morning", () => {
    // Fridays 22:00 to 06:00 in UTC: 2026-05-01 is a Friday.
    const window = weekly({ days: ["fri"], start_time: "22:00", end_time: "06:00", time_zone: "UTC" });
    expect(openWindowAt(window, at("2026-05-01T21:59:00Z"))).toBeNull();
    expect(openWindowAt(window, at("2026-05-01T22:00:00Z"))).toEqual({ start: new Date("2026-05-01T22:00:00Z"), end: new Date("2026-05-02T06:00:00Z") });
    // Saturday early morning belongs to Friday's window, though Saturday is not one of its days.
    expect(openWindowAt(window, at("2026-05-02T05:59:00Z"))?.end).toEqual(new Date("2026-05-02T06:00:00Z"));
    expect(openWindowAt(window, at("2026-05-02T06:00:00Z"))).toBeNull();
    // Thursday night is not Friday's.
    expect(openWindowAt(window, at("2026-04-30T23:00:00Z"))).toBeNull();
    expect(nextWindowAfter(window, at("2026-05-02T06:00:00Z"))).toEqual({ start: new Date("2026-05-08T22:00:00Z"), end: new Date("2026-05-09T06:00:00Z") });
    expect(silenceStateAt(window, at("2026-05-03T12:00:00Z"))).toBe("pending");
  });

  it("equal start and end times make a whole day", () => {
    const window = weekly({ days: ["sun"], start_time: "00:00", end_time: "00:00", time_zone: "UTC" });
    expect(openWindowAt(window, at("2026-05-03T23:59:00Z"))).toEqual({ start: new Date("2026-05-03T00:00:00Z"), end: new Date("2026-05-04T00:00:00Z") });
  });

  it("follows Berlin's wall clock across the spring change (2026-03-29, 02:00 CET becomes 03:00 CEST)", () => {
    // Saturday 22:00 to Sunday 06:00, Berlin time: starts 21:00Z (CET, +1), ends 04:00Z (CEST, +2): seven hours.
    const window = weekly({ days: ["sat"], start_time: "22:00", end_time: "06:00", time_zone: "Europe/Berlin" });
    expect(openWindowAt(window, at("2026-03-28T20:59:00Z"))).toBeNull();
    expect(openWindowAt(window, at("2026-03-28T21:00:00Z"))).toEqual({ start: new Date("2026-03-28T21:00:00Z"), end: new Date("2026-03-29T04:00:00Z") });
    expect(openWindowAt(window, at("2026-03-29T03:59:00Z"))).not.toBeNull();
    expect(openWindowAt(window, at("2026-03-29T04:00:00Z"))).toBeNull();
    // The week before, in winter time, it lasted eight hours.
    expect(openWindowAt(window, at("2026-03-22T04:59:00Z"))?.end).toEqual(new Date("2026-03-22T05:00:00Z"));
  });

  it("follows Berlin's wall clock across the autumn change (2026-10-25, 03:00 CEST becomes 02:00 CET)", () => {
    const window = weekly({ days: ["sat"], start_time: "22:00", end_time: "06:00", time_zone: "Europe/Berlin" });
    // Starts 20:00Z (CEST), ends 05:00Z (CET): nine hours.
    expect(openWindowAt(window, at("2026-10-24T20:00:00Z"))).toEqual({ start: new Date("2026-10-24T20:00:00Z"), end: new Date("2026-10-25T05:00:00Z") });
    expect(openWindowAt(window, at("2026-10-25T04:59:00Z"))).not.toBeNull();
    expect(openWindowAt(window, at("2026-10-25T05:00:00Z"))).toBeNull();
  });

  it("follows New York's wall clock across both changes (2026-03-08 and 2026-11-01)", () => {
    const window = weekly({ days: ["sat", "sun"], start_time: "23:00", end_time: "03:00", time_zone: "America/New_York" });
    // Saturday 23:00 EST (04:00Z) to Sunday 03:00 EDT (07:00Z): the clocks skip 02:00 to 03:00, three hours.
    expect(openWindowAt(window, at("2026-03-08T05:00:00Z"))).toEqual({ start: new Date("2026-03-08T04:00:00Z"), end: new Date("2026-03-08T07:00:00Z") });
    expect(openWindowAt(window, at("2026-03-08T07:00:00Z"))).toBeNull();
    // Saturday 23:00 EDT (03:00Z) to Sunday 03:00 EST (08:00Z): 01:00 to 02:00 happens twice, five hours.
    expect(openWindowAt(window, at("2026-11-01T07:59:00Z"))).toEqual({ start: new Date("2026-11-01T03:00:00Z"), end: new Date("2026-11-01T08:00:00Z") });
    // Sunday's own window, 23:00 EST.
    expect(nextWindowAfter(window, at("2026-11-01T08:00:00Z"))?.start).toEqual(new Date("2026-11-02T04:00:00Z"));
  });

  it("reads a wall-clock time the clocks skip as after the jump, and one they repeat as its first occurrence", () => {
    // 02:30 on 2026-03-29 does not exist in Berlin: read with the offset before, it is 03:30 CEST (01:30Z).
    expect(new Date(zonedInstant(Date.UTC(2026, 2, 29, 2, 30), "Europe/Berlin"))).toEqual(new Date("2026-03-29T01:30:00Z"));
    // 02:30 on 2026-10-25 happens twice in Berlin: first in CEST (00:30Z).
    expect(new Date(zonedInstant(Date.UTC(2026, 9, 25, 2, 30), "Europe/Berlin"))).toEqual(new Date("2026-10-25T00:30:00Z"));
    expect(new Date(zonedInstant(Date.UTC(2026, 6, 1, 12, 0), "America/New_York"))).toEqual(new Date("2026-07-01T16:00:00Z"));
  });

  it("a window starting in the skipped hour starts when the clocks jump past it", () => {
    const window = weekly({ days: ["sun"], start_time: "02:30", end_time: "04:00", time_zone: "Europe/Berlin" });
    expect(openWindowAt(window, at("2026-03-29T01:45:00Z"))).toEqual({ start: new Date("2026-03-29T01:30:00Z"), end: new Date("2026-03-29T02:00:00Z") });
  });
});
