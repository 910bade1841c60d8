import { describe, expect, it } from "vitest";
import { eachElement } from "./fields";
import { suggestMapping } from "./mapping-suggestions";
import { readGenericPayload } from "./normalize";
import { extractPayloadFields } from "./payload-fields";

function suggest(sample: Record<string, unknown>) {
  return suggestMapping(extractPayloadFields(sample), sample);
}

describe("suggestMapping", () => {
  it("maps a tool's own names, with a severity value map, an epoch start time and every host of an array", () => {
    const sample = {
      check: { name: "Disk almost full", priority: "P2", startedAt: 1767261600, output: "sda1 at 97%" },
      targets: [{ hostname: "db-1" }, { hostname: "db-2" }],
      incident_id: "INC-42",
      env: "production",
    };
    expect(suggest(sample)).toEqual({
      title: { path: ["check", "name"], type: "string", label: "check/name" },
      description: { path: ["check", "output"], type: "string", label: "check/output" },
      start_time: { path: ["check", "startedAt"], type: "number", label: "check/startedAt" },
      hosts: { path: ["targets", eachElement, "hostname"], type: "array", label: "targets[*]/hostname" },
      severity: { path: ["check", "priority"], type: "string", label: "check/priority", values: { P2: "high" } },
      fingerprint: { path: ["incident_id"], type: "string", label: "incident_id" },
      gitlab_environment_name: { path: ["env"], type: "string", label: "env" },
    });
    // What the preview then shows: the alert the receiver would open.
    const { alert } = readGenericPayload(sample, suggest(sample), new Date("2026-03-01T12:00:00Z"));
    expect(alert).toMatchObject({
      title: "Disk almost full",
      description: "sda1 at 97%",
      startedAt: new Date("2026-01-01T10:00:00Z"),
      hosts: ["db-1", "db-2"],
      severity: "high",
      environmentName: "production",
    });
  });

  it("prefers the likeliest name, then the field nearer the top, and gives no payload field to two alert fields", () => {
    expect(suggest({ details: { title: "Deep title" }, summary: "Top summary", message: "The message", alert: { title: "Nested title" } })).toEqual({
      title: { path: ["details", "title"], type: "string", label: "details/title" },
      description: { path: ["message"], type: "string", label: "message" },
    });
    // `message` titles the alert when nothing is named better, and is then no description.
    expect(suggest({ message: "Only a message", text: "Some text" })).toEqual({
      title: { path: ["message"], type: "string", label: "message" },
      description: { path: ["text"], type: "string", label: "text" },
    });
  });

  it("reads keys whatever their case and separators, prefers all of an array's elements to one, and leaves what it cannot place", () => {
    expect(suggest({ "Alert-Name": "Latency", "Starts_At": "2026-01-01T10:00:00Z", hosts: ["a", "b"], level: "Warning", duration_time: 35 })).toEqual({
      title: { path: ["Alert-Name"], type: "string", label: "Alert-Name" },
      start_time: { path: ["Starts_At"], type: "datetime", label: "Starts_At" },
      hosts: { path: ["hosts"], type: "array", label: "hosts" },
      severity: { path: ["level"], type: "string", label: "level", values: { Warning: "medium" } },
    });
    // A small number is no time; a severity already ours needs no value map; unknown words get none either.
    expect(suggest({ time: 35, severity: "High" })).toEqual({ severity: { path: ["severity"], type: "string", label: "severity" } });
    expect(suggest({ severity: "purple" })).toEqual({ severity: { path: ["severity"], type: "string", label: "severity" } });
    expect(suggest({ items: [{ host: "x" }] }).hosts).toEqual({ path: ["items", eachElement, "host"], type: "array", label: "items[*]/host" });
    expect(suggest({ unrelated: "value", count: 3 })).toEqual({});
  });
});
