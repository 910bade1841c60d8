import { describe, expect, it } from "vitest";
import {
  azureCommonAlert,
  cloudWatchAlarmNotification,
  datadogWebhook,
  googleCloudIncident,
  grafanaOnCallWebhook,
  grafanaWebhook,
  kibanaAction,
  nagiosNotification,
  newRelicIssue,
  opsgenieCreateAlert,
  pagerDutyFollowUp,
  pagerDutyTrigger,
  sentryIssueAlert,
  sentryIssueWebhook,
  snsSubscriptionConfirmation,
  uptimeKumaWebhook,
  zabbixEvent,
} from "@/lib/testing/alert-format-fixtures";
import { azureSeverity } from "./azure";
import { parseDatadogTitle } from "./datadog";
import { answerForEvents, answerForInvalid, choosePayloadFormat, detectPayloadFormat, payloadFormatDefinitions, sourceLinks } from "./registry";
import type { AlertEvent, FormatReading, PayloadFormat } from "./types";

const now = new Date("2026-03-01T12:00:00Z");

function read(format: PayloadFormat, body: Record<string, unknown>): FormatReading {
  return payloadFormatDefinitions[format].read(body, now, null);
}

function events(format: PayloadFormat, body: Record<string, unknown>): AlertEvent[] {
  const reading = read(format, body);
  if (reading.kind !== "events") throw new Error(`expected events, got ${JSON.stringify(reading)}`);
  return reading.events;
}

const alertmanagerWebhook = {
  version: "4",
  groupKey: "{}:{}",
  status: "firing",
  receiver: "gitlab",
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: "http://alertmanager:9093",
  alerts: [{ status: "firing", labels: { alertname: "Up" }, annotations: {}, startsAt: "2026-01-01T00:00:00Z", generatorURL: "http://prom/graph?g0.expr=up" }],
};

describe("format detection", () => {
  it("recognizes each tool's documented payload, and takes anything else as generic", () => {
    expect(detectPayloadFormat(alertmanagerWebhook)).toBe("alertmanager");
    expect(detectPayloadFormat(grafanaWebhook("firing"))).toBe("grafana");
    expect(detectPayloadFormat(pagerDutyTrigger("key"))).toBe("pagerduty");
    expect(detectPayloadFormat(pagerDutyFollowUp("key", "resolve"))).toBe("pagerduty");
    expect(detectPayloadFormat(azureCommonAlert("Fired"))).toBe("azure");
    expect(detectPayloadFormat(cloudWatchAlarmNotification("ALARM"))).toBe("cloudwatch");
    expect(detectPayloadFormat(snsSubscriptionConfirmation())).toBe("cloudwatch");
    expect(detectPayloadFormat(sentryIssueAlert())).toBe("sentry");
    expect(detectPayloadFormat(sentryIssueWebhook("resolved"))).toBe("sentry");
    expect(detectPayloadFormat(datadogWebhook("Triggered"))).toBe("datadog");
    expect(detectPayloadFormat(googleCloudIncident("open"))).toBe("google_cloud");
    expect(detectPayloadFormat(newRelicIssue("CLOSED"))).toBe("new_relic");
    expect(detectPayloadFormat(zabbixEvent("1"))).toBe("zabbix");
    expect(detectPayloadFormat(nagiosNotification("PROBLEM"))).toBe("nagios");
    expect(detectPayloadFormat(kibanaAction("recovered"))).toBe("kibana");
    expect(detectPayloadFormat(uptimeKumaWebhook(0))).toBe("uptime_kuma");
    expect(detectPayloadFormat({ heartbeat: null, monitor: null, msg: "Uptime Kuma Webhook Testing" })).toBe("uptime_kuma");
    expect(detectPayloadFormat(grafanaOnCallWebhook("ok"))).toBe("grafana_oncall");
    expect(detectPayloadFormat({ ...grafanaOnCallWebhook("alerting"), state: "firing" })).toBe("generic");
    expect(detectPayloadFormat({ title: "Disk full", severity: "high" })).toBe("generic");
    // Near misses stay generic: Alertmanager's shape without Grafana's orgId, an SNS notification that is no alarm.
    const { orgId: _orgId, ...withoutOrg } = grafanaWebhook("firing");
    expect(detectPayloadFormat(withoutOrg)).toBe("generic");
    expect(detectPayloadFormat({ ...cloudWatchAlarmNotification("ALARM"), Message: "plain text" })).toBe("generic");
  });

  it("reads a payload in the URL's format, else generic under a custom mapping, else the setting, else the detected one", () => {
    const body = grafanaWebhook("firing");
    const mapping = { title: { path: ["title"], type: "string" as const } };
    expect(choosePayloadFormat(body, { payloadFormat: "auto", payloadAttributeMapping: {} })).toBe("grafana");
    expect(choosePayloadFormat(body, { payloadFormat: "generic", payloadAttributeMapping: {} })).toBe("generic");
    expect(choosePayloadFormat(body, { payloadFormat: "auto", payloadAttributeMapping: mapping })).toBe("generic");
    expect(choosePayloadFormat(body, { payloadFormat: "azure", payloadAttributeMapping: mapping })).toBe("generic");
    expect(choosePayloadFormat(body, { payloadFormat: "auto", payloadAttributeMapping: mapping }, "pagerduty")).toBe("pagerduty");
  });

  it("refuses a payload that is not in an explicitly chosen format, in the format's own error shape", () => {
    expect(read("azure", { title: "x" })).toEqual({
      kind: "invalid",
      errors: ['The payload is not an Azure Monitor alert in the common alert schema ("schemaId": "azureMonitorCommonAlertSchema").'],
    });
    expect(answerForInvalid("azure", ["bad"])).toEqual({ status: 400, body: { message: "bad" } });
    expect(answerForInvalid("pagerduty", ["bad"])).toEqual({ status: 400, body: { status: "invalid event", message: "Event object is invalid", errors: ["bad"] } });
  });
});

describe("Grafana", () => {
  it("reads each alert with its severity label, groups by Grafana's fingerprint and resolves by status", () => {
    const [firing] = events("grafana", grafanaWebhook("firing"));
    expect(firing!.alert).toEqual({
      title: "This alert was triggered for zone us-1",
      description: "The system has high memory usage",
      startedAt: new Date("2021-10-12T07:51:03.157Z"),
      endedAt: null,
      service: null,
      monitoringTool: "Grafana",
      hosts: [],
      severity: "low",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "grafana:1/c6eadffa33fcdf37",
    });
    const [resolved] = events("grafana", grafanaWebhook("resolved"));
    expect(resolved!.alert).toMatchObject({ action: "resolve", endedAt: new Date("2021-10-12T08:21:03.157Z"), fingerprintSource: "grafana:1/c6eadffa33fcdf37" });
    expect(answerForEvents("grafana", [{ iid: 1, title: "t" }, null], [firing!, firing!])).toEqual({ status: 201, body: [{ iid: 1, title: "t" }] });
  });

  it("links to the rule, runbook, dashboard, panel and silence", () => {
    const [firing] = events("grafana", grafanaWebhook("firing"));
    expect(sourceLinks("grafana", firing!.payload).map((link) => link.label)).toEqual(["Alert rule", "Runbook", "Dashboard", "Panel", "Silence"]);
  });
});

describe("PagerDuty Events API v2", () => {
  it("reads a trigger: dedup_key is the identity, severities through GitLab's table, the routing key is not stored", () => {
    const [event] = events("pagerduty", pagerDutyTrigger("secret-key"));
    expect(event!.alert).toEqual({
      title: "Example alert on host1.example.com",
      description: '{"ping time":"1500ms","load avg":0.75}',
      startedAt: new Date("2015-07-17T08:42:58.315Z"),
      endedAt: null,
      service: "postgres",
      monitoringTool: "Example Monitoring Service",
      hosts: ["monitoringtool:cloudvendor:central-region-dc-01:852559987:cluster/api-stats-prod-003"],
      severity: "info",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "pagerduty:samplekeyhere",
    });
    expect(event!.payload).not.toHaveProperty("routing_key");
    const severity = (value: string) => events("pagerduty", { ...pagerDutyTrigger("k"), payload: { ...pagerDutyTrigger("k").payload, severity: value } })[0]!.alert.severity;
    expect(["critical", "error", "warning", "info"].map(severity)).toEqual(["critical", "medium", "low", "info"]);
    expect(answerForEvents("pagerduty", [{ iid: 3, title: "x" }], [event!])).toEqual({
      status: 202,
      body: { status: "success", message: "Event processed", dedup_key: "samplekeyhere" },
    });
  });

  it("acknowledges and resolves by dedup_key, and gives a trigger without one a new key each time", () => {
    expect(events("pagerduty", pagerDutyFollowUp("k", "acknowledge"))[0]!.alert).toMatchObject({ action: "acknowledge", fingerprintSource: "pagerduty:samplekeyhere" });
    expect(events("pagerduty", pagerDutyFollowUp("k", "resolve"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: now });
    const { dedup_key: _key, ...keyless } = pagerDutyTrigger("k");
    const [first] = events("pagerduty", keyless);
    const [second] = events("pagerduty", keyless);
    expect((first!.payload as { dedup_key: string }).dedup_key).toMatch(/^[0-9a-f]{32}$/);
    expect(first!.alert.fingerprintSource).not.toEqual(second!.alert.fingerprintSource);
  });

  it("refuses invalid events with PagerDuty's reasons", () => {
    expect(read("pagerduty", { event_action: "explode" })).toEqual({
      kind: "invalid",
      errors: ["'event_action' is missing or invalid (must be one of trigger, acknowledge, resolve)"],
    });
    expect(read("pagerduty", { event_action: "resolve" })).toEqual({ kind: "invalid", errors: ["'dedup_key' is required to resolve an alert"] });
    expect(read("pagerduty", { event_action: "trigger", payload: { summary: " ", severity: "fatal" } })).toEqual({
      kind: "invalid",
      errors: [
        "'payload.summary' is missing or blank",
        "'payload.source' is missing or blank",
        "'payload.severity' is missing or invalid (must be one of critical, error, warning, info)",
      ],
    });
  });

  it("links to the client and the event's links and images, never to anything but http(s)", () => {
    const [event] = events("pagerduty", { ...pagerDutyTrigger("k"), links: [{ href: "javascript:alert(1)", text: "x" }, { href: "https://example.com/", text: "Link text" }] });
    expect(sourceLinks("pagerduty", event!.payload)).toEqual([
      { label: "Example Monitoring Service", url: "https://example.com/" },
      { label: "Link text", url: "https://example.com/" },
      { label: "Example text", url: "https://example.com/" },
    ]);
  });
});

describe("Azure Monitor common alert schema", () => {
  it("maps Sev0…Sev4 to critical…info", () => {
    expect(["Sev0", "Sev1", "Sev2", "Sev3", "Sev4"].map(azureSeverity)).toEqual(["critical", "high", "medium", "low", "info"]);
  });

  it("fires and resolves by monitorCondition, grouped by originAlertId", () => {
    const [fired] = events("azure", azureCommonAlert("Fired"));
    const identity = "azure:3f2d4487-b0fc-4125-8bd5-7ad17384221e_PipeLineAlertRG_microsoft.insights_metricAlerts_WCUS-R2-Gen2_-117781227";
    expect(fired!.alert).toEqual({
      title: "WCUS-R2-Gen2",
      description: null,
      startedAt: new Date("2019-03-22T13:58:24.371Z"),
      endedAt: null,
      service: "Platform",
      monitoringTool: "Azure Monitor",
      hosts: ["wcus-r2-gen2"],
      severity: "low",
      environmentName: null,
      action: "trigger",
      fingerprintSource: identity,
    });
    expect(events("azure", azureCommonAlert("Resolved"))[0]!.alert).toMatchObject({
      action: "resolve",
      endedAt: new Date("2019-03-22T14:03:16.224Z"),
      fingerprintSource: identity,
    });
    expect(read("azure", { ...azureCommonAlert("Fired"), data: { essentials: { monitorCondition: "Sleeping" } } })).toEqual({
      kind: "invalid",
      errors: ["'data.essentials.monitorCondition' must be Fired or Resolved"],
    });
  });

  it("links to the alert and the affected resource in the Azure portal", () => {
    expect(sourceLinks("azure", azureCommonAlert("Fired")).map((link) => link.label)).toEqual(["Alert in the Azure portal", "Affected resource"]);
  });
});

describe("Amazon CloudWatch via SNS", () => {
  it("fires on ALARM and resolves on OK, grouped by the alarm's ARN; INSUFFICIENT_DATA changes nothing", () => {
    const [alarm] = events("cloudwatch", cloudWatchAlarmNotification("ALARM"));
    expect(alarm!.alert).toEqual({
      title: "HighCPUUtilization",
      description:
        "CPU above 80% on the web tier\n\nThreshold Crossed: 1 out of the last 1 datapoints [91.2 (30/05/23 11:07:00)] was greater than the threshold (80.0).",
      startedAt: new Date("2023-05-30T11:08:27.123Z"),
      endedAt: null,
      service: "AWS/EC2",
      monitoringTool: "Amazon CloudWatch",
      hosts: ["i-0123456789abcdef0"],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "cloudwatch:arn:aws:cloudwatch:us-east-1:123456789012:alarm:HighCPUUtilization",
    });
    expect((alarm!.payload as { Message: unknown }).Message).toMatchObject({ AlarmName: "HighCPUUtilization" });
    expect(events("cloudwatch", cloudWatchAlarmNotification("OK"))[0]!.alert).toMatchObject({
      action: "resolve",
      endedAt: new Date("2023-05-30T11:20:27.123Z"),
      fingerprintSource: alarm!.alert.fingerprintSource,
    });
    expect(read("cloudwatch", cloudWatchAlarmNotification("INSUFFICIENT_DATA"))).toEqual({ kind: "ignored", reason: "CloudWatch alarm state INSUFFICIENT_DATA" });
  });

  it("keeps a subscription confirmation for a person to open, and only Amazon SNS's own URLs", () => {
    expect(read("cloudwatch", snsSubscriptionConfirmation())).toEqual({
      kind: "subscription",
      confirmation: {
        topicArn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
        subscribeUrl: "https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-west-2:123456789012:MyTopic&Token=2336412f37",
        receivedAt: now.toISOString(),
      },
    });
    expect(read("cloudwatch", snsSubscriptionConfirmation("https://sns.evil.example/confirm"))).toEqual({ kind: "invalid", errors: ["'SubscribeURL' is not an Amazon SNS URL"] });
    expect(read("cloudwatch", snsSubscriptionConfirmation("http://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription"))).toMatchObject({ kind: "invalid" });
  });

  it("links to the alarm in the CloudWatch console", () => {
    const [alarm] = events("cloudwatch", cloudWatchAlarmNotification("ALARM"));
    expect(sourceLinks("cloudwatch", alarm!.payload)).toEqual([
      { label: "Alarm in the CloudWatch console", url: "https://console.aws.amazon.com/cloudwatch/home?region=us-east-1#alarmsV2:alarm/HighCPUUtilization" },
    ]);
  });
});

describe("Sentry", () => {
  it("fires an issue alert, grouped by the issue, with the event's level as severity", () => {
    const [event] = events("sentry", sentryIssueAlert());
    expect(event!.alert).toEqual({
      title: "ReferenceError: blooopy is not defined",
      description: "?(<anonymous>)",
      startedAt: new Date("2019-08-19T21:06:17.846Z"),
      endedAt: null,
      service: null,
      monitoringTool: "Sentry",
      hosts: [],
      severity: "medium",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "sentry:1117540176",
    });
    expect(sourceLinks("sentry", event!.payload).map((link) => link.label)).toEqual(["Event in Sentry"]);
  });

  it("resolves the issue's alert with the issue webhook, and leaves it be for other issue actions", () => {
    expect(events("sentry", sentryIssueWebhook("resolved"))[0]!.alert).toMatchObject({ action: "resolve", fingerprintSource: "sentry:1117540176", service: "front-end" });
    expect(read("sentry", sentryIssueWebhook("assigned"))).toEqual({ kind: "ignored", reason: "Sentry issue assigned" });
  });
});

describe("Datadog", () => {
  it("parses monitor titles: priority, transition, scope and monitor", () => {
    expect(parseDatadogTitle("[P1] [Triggered on {host:web-1}] CPU load is high")).toEqual({ priority: "P1", transition: "triggered", scope: "{host:web-1}", monitor: "CPU load is high" });
    expect(parseDatadogTitle("[Recovered] Disk")).toEqual({ priority: null, transition: "recovered", scope: null, monitor: "Disk" });
    expect(parseDatadogTitle("Deployment finished")).toBeNull();
    // The monitor's name is the rest of the title, on one line.
    expect(parseDatadogTitle("[Triggered]  \n  Disk full ")).toEqual({ priority: null, transition: "triggered", scope: null, monitor: "Disk full" });
    expect(parseDatadogTitle("[Triggered] Disk\nfull")).toBeNull();
  });

  it("reads a title of long white space and a second line, and a body of unclosed links, in one pass", () => {
    const started = performance.now();
    expect(parseDatadogTitle(`[Triggered]${" ".repeat(200_000)}x\ny`)).toBeNull();
    const unclosed = { ...datadogWebhook("Triggered"), body: "[a](http://x".repeat(80_000) };
    expect(sourceLinks("datadog", unclosed)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("shows at most 20 links of a payload", () => {
    const links = Array.from({ length: 50 }, (_, index) => `[Link ${index}](https://example.com/${index})`).join(" ");
    const shown = sourceLinks("datadog", { ...datadogWebhook("Triggered"), body: links });
    expect(shown).toHaveLength(20);
    expect(shown[19]).toEqual({ label: "Link 19", url: "https://example.com/19" });
    const pagerDutyLinks = Array.from({ length: 10_000 }, (_, index) => ({ href: `https://example.com/${index}`, text: `L${index}` }));
    expect(sourceLinks("pagerduty", { links: pagerDutyLinks, images: pagerDutyLinks })).toHaveLength(20);
  });

  it("fires on Triggered and resolves on Recovered, grouped by monitor and scope, severity by priority", () => {
    const [triggered] = events("datadog", datadogWebhook("Triggered"));
    expect(triggered!.alert).toEqual({
      title: "CPU load is high on {host:web-1}",
      description: expect.stringContaining("CPU load is above 4"),
      startedAt: new Date(1567692820000),
      endedAt: null,
      service: null,
      monitoringTool: "Datadog",
      hosts: [],
      severity: "high",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "datadog:11287/{host:web-1}/CPU load is high",
    });
    expect(events("datadog", datadogWebhook("Recovered"))[0]!.alert).toMatchObject({
      action: "resolve",
      endedAt: new Date(1567693720000),
      fingerprintSource: triggered!.alert.fingerprintSource,
    });
    const warned = { ...datadogWebhook("Triggered"), title: "[Warn on {host:web-1}] CPU load is high" };
    expect(events("datadog", warned)[0]!.alert.severity).toBe("low");
  });

  it("links to what the notification's text links to", () => {
    expect(sourceLinks("datadog", datadogWebhook("Triggered"))).toEqual([
      { label: "Monitor Status", url: "https://app.datadoghq.com/monitors/1234?to_ts=1567692820000" },
      { label: "Edit Monitor", url: "https://app.datadoghq.com/monitors#1234/edit" },
    ]);
  });
});

describe("source links", () => {
  it("are none for alerts stored before formats, or in an unknown format", () => {
    expect(sourceLinks(null, { generatorURL: "https://x" })).toEqual([]);
    expect(sourceLinks("nagios", { generatorURL: "https://x" })).toEqual([]);
    expect(sourceLinks("alertmanager", alertmanagerWebhook.alerts[0])).toEqual([{ label: "Alert rule", url: "http://prom/graph?g0.expr=up" }]);
  });
});

describe("Uptime Kuma", () => {
  it("fires when a monitor goes down and resolves when it comes back, grouped by the monitor, at the heartbeat's UTC time", () => {
    const [down] = events("uptime_kuma", uptimeKumaWebhook(0));
    expect(down!.alert).toEqual({
      title: "Storefront is down",
      description: "connect ECONNREFUSED 10.0.0.12:443",
      startedAt: new Date("2026-03-01T11:58:30.120Z"),
      endedAt: null,
      service: "Storefront",
      monitoringTool: "Uptime Kuma",
      hosts: ["https://shop.example.com/health"],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "uptime_kuma:7",
    });
    expect(sourceLinks("uptime_kuma", down!.payload)).toEqual([{ label: "Monitored URL", url: "https://shop.example.com/health" }]);
    expect(events("uptime_kuma", uptimeKumaWebhook(1))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date("2026-03-01T12:03:30.450Z"), fingerprintSource: "uptime_kuma:7" });
  });

  it("changes nothing for pending and maintenance heartbeats, and opens an alert of its own for the Test button", () => {
    expect(read("uptime_kuma", uptimeKumaWebhook(2))).toEqual({ kind: "ignored", reason: "Uptime Kuma heartbeat pending" });
    expect(read("uptime_kuma", uptimeKumaWebhook(3))).toEqual({ kind: "ignored", reason: "Uptime Kuma heartbeat maintenance" });
    const [test] = events("uptime_kuma", { heartbeat: null, monitor: null, msg: "Uptime Kuma Webhook Testing" });
    expect(test!.alert).toMatchObject({ title: "Uptime Kuma Webhook Testing", severity: "info", action: "trigger", fingerprintSource: "uptime_kuma:test" });
    expect(read("uptime_kuma", { title: "x" })).toEqual({ kind: "invalid", errors: ["The payload is not an Uptime Kuma webhook notification (heartbeat, monitor and msg)."] });
  });
});

describe("Grafana OnCall formatted webhook", () => {
  it("fires on alerting and resolves on ok, grouped by alert_uid, linking to the upstream details", () => {
    const [fired] = events("grafana_oncall", grafanaOnCallWebhook("alerting"));
    expect(fired!.alert).toEqual({
      title: "The whole system is down",
      description: "Smth happened. Oh no!",
      startedAt: now,
      endedAt: null,
      service: null,
      monitoringTool: "Grafana OnCall",
      hosts: [],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "grafana_oncall:08d6891a-835c-e661-39fa-96b6a9e26552",
    });
    expect(sourceLinks("grafana_oncall", fired!.payload)).toEqual([{ label: "Details", url: "https://en.wikipedia.org/wiki/Downtime" }]);
    expect(events("grafana_oncall", grafanaOnCallWebhook("ok"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: now });
    expect(read("grafana_oncall", { alert_uid: "x", title: "t", state: "firing" })).toEqual({
      kind: "invalid",
      errors: ['The payload is not a Grafana OnCall formatted webhook (alert_uid, title, and state "alerting" or "ok").'],
    });
  });
});

describe("Google Cloud Monitoring", () => {
  it("opens and closes with the incident, grouped by it, with the policy's severity and the console's link", () => {
    const [opened] = events("google_cloud", googleCloudIncident("open"));
    expect(opened!.alert).toEqual({
      title: "ALERT - No severity",
      description: "CPU utilization for internal-project gke-cluster-1-default-pool-e2df4cbd-dgp3 is above the threshold of 0.9 with a value of 0.835.",
      startedAt: new Date(1577840461 * 1000),
      endedAt: null,
      service: "VM Instance",
      monitoringTool: "Google Cloud Monitoring",
      hosts: ["gke-cluster-1-default-pool-e2df4cbd-dgp3"],
      severity: "low",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "google_cloud:0.opqiw61fsv7p",
    });
    expect(sourceLinks("google_cloud", opened!.payload).map((link) => link.label)).toEqual(["Incident in Cloud Monitoring"]);
    expect(events("google_cloud", googleCloudIncident("closed"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date(1577877071 * 1000) });
    const critical = googleCloudIncident("open");
    expect(events("google_cloud", { ...critical, incident: { ...critical.incident, severity: "Critical" } })[0]!.alert.severity).toBe("critical");
    expect(events("google_cloud", { ...critical, incident: { ...critical.incident, severity: "Error" } })[0]!.alert.severity).toBe("high");
    expect(events("google_cloud", { ...critical, incident: { ...critical.incident, severity: "no severity" } })[0]!.alert.severity).toBe("critical");
  });
});

describe("New Relic", () => {
  it("fires for an activated issue and resolves when it closes, grouped by the issue, with its priority", () => {
    const [activated] = events("new_relic", newRelicIssue("ACTIVATED"));
    expect(activated!.alert).toEqual({
      title: "CPU usage > 90% on checkout-web",
      description: "High CPU",
      startedAt: new Date(1772366400000),
      endedAt: null,
      service: "Checkout",
      monitoringTool: "New Relic",
      hosts: ["checkout-web"],
      severity: "high",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "new_relic:6f3a2d16-8a1c-4f4f-9c8e-1c1c3c5b2a10",
    });
    expect(sourceLinks("new_relic", activated!.payload).map((link) => link.label)).toEqual(["Issue in New Relic"]);
    expect(events("new_relic", newRelicIssue("CLOSED"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date(1772367300000) });
    expect(read("new_relic", { ...newRelicIssue("ACTIVATED"), state: "ACKNOWLEDGED" })).toEqual({ kind: "ignored", reason: "New Relic issue ACKNOWLEDGED" });
  });
});

describe("Zabbix", () => {
  it("fires for a problem and resolves with its recovery, grouped by the problem's event, with Zabbix's severity", () => {
    const [problem] = events("zabbix", zabbixEvent("1"));
    expect(problem!.alert).toEqual({
      title: "High CPU utilization (over 90% for 5m)",
      description: "CPU utilization is too high. The system might be slow to respond.",
      startedAt: new Date("2026-03-01T11:55:00Z"),
      endedAt: null,
      service: "Linux servers",
      monitoringTool: "Zabbix",
      hosts: ["web-01"],
      severity: "medium",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "zabbix:51482",
    });
    expect(sourceLinks("zabbix", problem!.payload)).toEqual([{ label: "Event in Zabbix", url: "https://zabbix.example.com/tr_events.php?triggerid=23296&eventid=51482" }]);
    expect(events("zabbix", zabbixEvent("0"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date("2026-03-01T12:10:00Z"), fingerprintSource: "zabbix:51482" });
    const severityOf = (named: string, numbered: string) => events("zabbix", { ...zabbixEvent("1"), event_severity: named, event_nseverity: numbered })[0]!.alert.severity;
    expect([severityOf("Disaster", "5"), severityOf("High", "4"), severityOf("Warning", "2"), severityOf("Information", "1"), severityOf("Not classified", "0")]).toEqual([
      "critical",
      "high",
      "low",
      "info",
      "unknown",
    ]);
    // A severity renamed in Zabbix's settings is read by its number.
    expect(severityOf("Sev-A", "5")).toBe("critical");
    expect(read("zabbix", { ...zabbixEvent("1"), event_value: "2" })).toEqual({ kind: "ignored", reason: "Zabbix event value 2" });
  });
});

describe("Nagios and Icinga", () => {
  it("fires for a problem, acknowledges, and resolves with the recovery, grouped by host and service", () => {
    const [problem] = events("nagios", nagiosNotification("PROBLEM"));
    expect(problem!.alert).toEqual({
      title: "Disk /var on db-02 is CRITICAL",
      description: "DISK CRITICAL - free space: /var 412 MB (2%)",
      startedAt: new Date(1772366100 * 1000),
      endedAt: null,
      service: "Disk /var",
      monitoringTool: "Nagios",
      hosts: ["db-02"],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "nagios:db-02/Disk /var",
    });
    expect(events("nagios", nagiosNotification("ACKNOWLEDGEMENT"))[0]!.alert).toMatchObject({ action: "acknowledge", fingerprintSource: "nagios:db-02/Disk /var" });
    expect(events("nagios", nagiosNotification("RECOVERY"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date(1772367000 * 1000) });
    const host = { ...nagiosNotification("PROBLEM"), service_description: "", state: "DOWN", output: "PING CRITICAL - Packet loss = 100%" };
    expect(events("nagios", host)[0]!.alert).toMatchObject({ title: "db-02 is DOWN", service: null, severity: "critical", fingerprintSource: "nagios:db-02/" });
    expect(read("nagios", { ...nagiosNotification("PROBLEM"), notification_type: "FLAPPINGSTART" })).toEqual({ kind: "ignored", reason: "Nagios notification FLAPPINGSTART" });
  });
});

describe("Elastic Kibana", () => {
  it("fires for a rule's action and resolves on its recovery, grouped by rule and alert, with the action's severity", () => {
    const [fired] = events("kibana", kibanaAction("threshold met"));
    expect(fired!.alert).toEqual({
      title: "Checkout latency above 2 s",
      description: "Checkout latency is 3.4 s, above the threshold of 2 s over the last 5 minutes",
      startedAt: new Date("2026-03-01T12:00:00.000Z"),
      endedAt: null,
      service: null,
      monitoringTool: "Elastic",
      hosts: ["checkout-web-1"],
      severity: "high",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "kibana:c3c5e0a0-5d6f-11ee-8c99-0242ac120002/checkout-web",
    });
    expect(sourceLinks("kibana", fired!.payload).map((link) => link.label)).toEqual(["Alert in Kibana"]);
    expect(events("kibana", kibanaAction("recovered"))[0]!.alert).toMatchObject({ action: "resolve", endedAt: new Date("2026-03-01T12:20:00.000Z") });
    const { severity: _severity, ...unrated } = kibanaAction("threshold met");
    expect(events("kibana", unrated)[0]!.alert.severity).toBe("critical");
  });
});

describe("Opsgenie Alert API", () => {
  it("creates by alias with the priority as the severity; acknowledges and closes by alias; answers Opsgenie's 202", () => {
    const [created] = events("opsgenie", opsgenieCreateAlert());
    expect(created!.alert).toEqual({
      title: "An example alert message",
      description: "Every alert needs a description",
      startedAt: now,
      endedAt: null,
      service: "An example entity",
      monitoringTool: "Opsgenie Alert API",
      hosts: [],
      severity: "critical",
      environmentName: null,
      action: "trigger",
      fingerprintSource: "opsgenie:Life is too short for no alias",
    });
    expect(created!.payload).toEqual(opsgenieCreateAlert());
    expect(sourceLinks("opsgenie", created!.payload)).toEqual([]);
    const answer = answerForEvents("opsgenie", [{ iid: 1, title: "An example alert message" }], [created!]);
    expect(answer).toEqual({ status: 202, body: { result: "Request will be processed", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });

    const followUp = { alias: "Life is too short for no alias", user: "Monitoring Script", source: "AWS Lambda", note: "Action executed via Alert API" };
    expect(events("opsgenie", { ...followUp, opsgenie_action: "acknowledge" })[0]!.alert).toMatchObject({
      action: "acknowledge",
      endedAt: null,
      monitoringTool: "AWS Lambda",
      fingerprintSource: "opsgenie:Life is too short for no alias",
    });
    expect(events("opsgenie", { ...followUp, opsgenie_action: "close" })[0]!.alert).toMatchObject({ action: "resolve", endedAt: now, fingerprintSource: "opsgenie:Life is too short for no alias" });
    // A source that is a URL is a link back to the tool.
    const [linked] = events("opsgenie", { ...opsgenieCreateAlert(), source: "http://alertmanager.example:9093/#/alerts?receiver=ops" });
    expect(linked!.alert.monitoringTool).toBe("Opsgenie Alert API");
    expect(sourceLinks("opsgenie", linked!.payload)).toEqual([{ label: "Source", url: "http://alertmanager.example:9093/#/alerts?receiver=ops" }]);
  });

  it("defaults to P3, gives every alert without an alias an identity of its own, and is never detected by its keys alone", () => {
    const { alias: _alias, priority: _priority, ...unnamed } = opsgenieCreateAlert();
    const [first] = events("opsgenie", unnamed);
    const [second] = events("opsgenie", unnamed);
    expect(first!.alert.severity).toBe("medium");
    expect(first!.alert.fingerprintSource).toMatch(/^opsgenie:[0-9a-f-]{36}$/);
    expect(second!.alert.fingerprintSource).not.toBe(first!.alert.fingerprintSource);
    expect(detectPayloadFormat(opsgenieCreateAlert())).toBe("generic");
  });

  it("refuses what Opsgenie refuses, with its 422 body by field", () => {
    expect(read("opsgenie", { message: " ", priority: "P9", alias: 7 })).toEqual({
      kind: "invalid",
      errors: ["message: Message can not be empty.", "alias: Alias must be a string of at most 512 characters.", "priority: Priority should be one of [P1, P2, P3, P4, P5]."],
    });
    expect(read("opsgenie", { message: "x".repeat(131) })).toEqual({ kind: "invalid", errors: ["message: Message can not be longer than 130 characters."] });
    expect(read("opsgenie", { opsgenie_action: "close" })).toEqual({ kind: "invalid", errors: ["identifier: Identifier can not be empty."] });
    expect(answerForInvalid("opsgenie", ["message: Message can not be empty.", "priority: Priority should be one of [P1, P2, P3, P4, P5]."])).toEqual({
      status: 422,
      body: {
        message: "Request body is not processable. Please check the errors.",
        errors: { message: "Message can not be empty.", priority: "Priority should be one of [P1, P2, P3, P4, P5]." },
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
  });
});
