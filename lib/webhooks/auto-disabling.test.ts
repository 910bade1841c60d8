import { describe, expect, it } from "vitest";
import { alertStatus, backoffSeconds } from "./auto-disabling";
import { renderCustomTemplate } from "./template";

const now = new Date("2030-01-01T00:00:00Z");
const later = new Date(now.getTime() + 1000);

describe("auto-disabling, as GitLab's WebHooks::AutoDisabling", () => {
  it("backs off a minute from the 4th failure, doubling to at most a day", () => {
    expect([3, 4, 5, 6, 13, 14, 39].map(backoffSeconds)).toEqual([60, 120, 240, 480, 61_440, 86_400, 86_400]);
  });

  it("is executable through 3 failures, temporarily disabled from 4 while the backoff runs, disabled from 40", () => {
    expect(alertStatus({ recentFailures: 3, disabledUntil: null }, now)).toBe("executable");
    expect(alertStatus({ recentFailures: 4, disabledUntil: later }, now)).toBe("temporarily_disabled");
    expect(alertStatus({ recentFailures: 4, disabledUntil: now }, later)).toBe("executable");
    expect(alertStatus({ recentFailures: 39, disabledUntil: later }, now)).toBe("temporarily_disabled");
    expect(alertStatus({ recentFailures: 40, disabledUntil: later }, now)).toBe("disabled");
    expect(alertStatus({ recentFailures: 40, disabledUntil: null }, now)).toBe("disabled");
  });
});

describe("custom webhook templates", () => {
  it("puts values in as JSON, strings without their quotes, and refuses what is not JSON", () => {
    const data = { object_kind: "issue", project: { id: 7, name: 'Say "hi"' }, labels: [1] };
    expect(renderCustomTemplate('{"kind":"{{object_kind}}","id":{{project.id}},"name":"{{project.name}}","l":{{labels}},"x":{{nope.no}}}', data)).toEqual({
      ok: true,
      value: { kind: "issue", id: 7, name: 'Say "hi"', l: [1], x: null },
    });
    expect(renderCustomTemplate("{{object_kind}}", data)).toMatchObject({ ok: false, error: expect.stringMatching(/^Error while parsing rendered custom webhook template: /) });
  });
});
