import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { alertIntegrations, alertNotes, alerts } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import {
  cloudWatchAlarmNotification,
  grafanaWebhook,
  headerAuthenticatedTools,
  opsgenieCreateAlert,
  pagerDutyFollowUp,
  pagerDutyTrigger,
  snsSubscriptionConfirmation,
} from "@/lib/testing/alert-format-fixtures";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import type { PayloadFormat, PayloadFormatSetting } from "./formats/types";
import { createIntegration, updateIntegration } from "./integrations";
import { receiveAlert, receiverRequestOf, type ReceiverEndpoint } from "./receive";
import { parseReceiverPath } from "./receiver-route";

const key = "formats-test-key";

/** One tool's alert lifecycle as its documented payloads tell it, and what the receiver answers to each. */
interface Lifecycle {
  format: PayloadFormat;
  fire: Record<string, unknown>;
  acknowledge?: Record<string, unknown>;
  resolve: Record<string, unknown>;
  /** The answer to an event that recorded the alert with iid 1, titled `title`. */
  answer: (title: string) => { status: number; body: unknown };
  /** Posted to the PagerDuty events URL with the key as the routing key, instead of with a header. */
  pagerDutyEventsUrl?: boolean;
  stored: { title: string; severity: string; monitoringTool: string };
  /** Who the notes name for follow-up events, when those name no monitoring tool of their own. */
  followUpSource?: string;
}

const listed = (status: number) => (title: string) => ({ status, body: [{ iid: 1, title }] });
const pagerDutyAccepted = () => ({ status: 202, body: { status: "success", message: "Event processed", dedup_key: "samplekeyhere" } });

const lifecycles: Lifecycle[] = [
  ...headerAuthenticatedTools.map(({ format, fire, resolve, status, alert }) => ({ format, fire, resolve, answer: listed(status), stored: alert })),
  {
    format: "pagerduty",
    fire: pagerDutyTrigger(key),
    acknowledge: pagerDutyFollowUp(key, "acknowledge"),
    resolve: pagerDutyFollowUp(key, "resolve"),
    answer: pagerDutyAccepted,
    pagerDutyEventsUrl: true,
    followUpSource: "PagerDuty Events API",
    stored: { title: "Example alert on host1.example.com", severity: "info", monitoringTool: "Example Monitoring Service" },
  },
];

describe.each(testDatabases())("alert payload formats on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const now = new Date("2026-03-01T12:00:00Z");

  async function newIntegration(payloadFormat: PayloadFormatSetting = "auto") {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const { project, namespace } = await createProject(ctx, { name: `Formats ${uniqueSuffix()}` });
    const projectPath = `${namespace.path}/${project.path}`;
    const { integration } = await createIntegration(ctx, projectPath, { name: "Tools", type: "http", active: true, payloadFormat });
    await handle.db.update(alertIntegrations).set({ tokenDigest: sha256Hex(key) }).where(eq(alertIntegrations.id, integration.id));
    return { ctx, integration, projectId: project.id, projectPath };
  }

  function post(projectPath: string, endpoint: ReceiverEndpoint, body: unknown, authorization: string | null = `Bearer ${key}`) {
    const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
    const request = new Request("http://localhost/", { method: "POST", headers, body: JSON.stringify(body) });
    return receiveAlert(handle.db, { projectPath, endpoint }, receiverRequestOf(request), now);
  }

  async function alertRows(projectId: number) {
    return handle.db.select().from(alerts).where(eq(alerts.projectId, projectId)).orderBy(alerts.iid);
  }

  it.each(lifecycles)("$format: fires, groups a repeat, acknowledges where it can, and resolves", async (lifecycle) => {
    const { integration, projectId, projectPath } = await newIntegration();
    const endpoint: ReceiverEndpoint = lifecycle.pagerDutyEventsUrl
      ? { kind: "pagerduty-events", identifier: integration.endpointIdentifier }
      : { kind: "identifier", identifier: integration.endpointIdentifier };
    // PagerDuty clients authenticate with the routing key alone.
    const send = (body: unknown) => post(projectPath, endpoint, body, lifecycle.pagerDutyEventsUrl ? null : `Bearer ${key}`);
    const answer = lifecycle.answer(lifecycle.stored.title);

    expect(await send(lifecycle.fire)).toEqual(answer);
    expect(await send(lifecycle.fire)).toEqual(answer);
    let [row] = await alertRows(projectId);
    expect(await alertRows(projectId)).toHaveLength(1);
    expect(row).toMatchObject({ ...lifecycle.stored, status: "triggered", eventCount: 2, payloadFormat: lifecycle.format, endedAt: null });
    if (lifecycle.format === "pagerduty") expect(row!.payload).not.toHaveProperty("routing_key");

    if (lifecycle.acknowledge) {
      expect(await send(lifecycle.acknowledge)).toEqual(answer);
      [row] = await alertRows(projectId);
      expect(row).toMatchObject({ status: "acknowledged", eventCount: 2 });
    }

    expect(await send(lifecycle.resolve)).toEqual(answer);
    const rows = await alertRows(projectId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "resolved", eventCount: 2 });
    expect(rows[0]!.endedAt).toBeInstanceOf(Date);
    const notes = await handle.db.select().from(alertNotes).where(eq(alertNotes.alertId, rows[0]!.id)).orderBy(alertNotes.id);
    const source = lifecycle.stored.monitoringTool;
    const followUpSource = lifecycle.followUpSource ?? source;
    expect(notes.map((note) => note.body)).toEqual([
      `logged an alert from **${source}**`,
      ...(lifecycle.acknowledge ? [`logged an acknowledgement from **${followUpSource}**`, "changed the status to **Acknowledged**"] : []),
      `logged a recovery alert from **${followUpSource}**`,
      "changed the status to **Resolved**",
    ]);

    // The problem is back: a new alert, since the resolved one is closed.
    expect(await send(lifecycle.fire)).toEqual(lifecycle.format === "pagerduty" ? answer : { ...answer, body: [{ iid: 2, title: lifecycle.stored.title }] });
    expect((await alertRows(projectId)).map((alert) => alert.status)).toEqual(["resolved", "triggered"]);
    const [stored] = await handle.db.select().from(alertIntegrations).where(eq(alertIntegrations.id, integration.id));
    expect(stored!.lastPayloadFormat).toBe(lifecycle.format);
  });

  it("answers PagerDuty's 400 for an invalid event, and takes a routing key as the key only on the events URL", async () => {
    const { integration, projectId, projectPath } = await newIntegration();
    const events: ReceiverEndpoint = { kind: "pagerduty-events", identifier: integration.endpointIdentifier };
    expect(await post(projectPath, events, { routing_key: key, event_action: "trigger" }, null)).toEqual({
      status: 400,
      body: { status: "invalid event", message: "Event object is invalid", errors: ["'payload' is missing or not an object"] },
    });
    // On the events URL every body is a PagerDuty event, whatever it looks like.
    expect(await post(projectPath, events, { routing_key: key, title: "Disk" }, null)).toMatchObject({ status: 400, body: { status: "invalid event" } });
    expect(await post(projectPath, events, pagerDutyTrigger("wrong-key"), null)).toEqual({ status: 401, body: { message: "401 Unauthorized" } });
    const plain: ReceiverEndpoint = { kind: "identifier", identifier: integration.endpointIdentifier };
    expect(await post(projectPath, plain, pagerDutyTrigger(key), null)).toEqual({ status: 401, body: { message: "401 Unauthorized" } });
    expect(await alertRows(projectId)).toEqual([]);
  });

  it("Opsgenie's Alert API: creates and counts repeats by alias, acknowledges and closes by alias, with a GenieKey", async () => {
    const { integration, projectId, projectPath } = await newIntegration();
    const base = ["alerts", "notify", "tools", integration.endpointIdentifier, "v2", "alerts"];
    const byAlias = new URLSearchParams({ identifierType: "alias" });
    const endpointOf = (tail: string[], query = new URLSearchParams()) => parseReceiverPath([...base, ...tail], query) as ReceiverEndpoint;
    const genieKey = `GenieKey ${key}`;
    const accepted = { status: 202, body: { result: "Request will be processed", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) } };

    expect(await post(projectPath, endpointOf([]), opsgenieCreateAlert(), genieKey)).toEqual(accepted);
    expect(await post(projectPath, endpointOf([]), opsgenieCreateAlert(), genieKey)).toEqual(accepted);
    let [row] = await alertRows(projectId);
    expect(await alertRows(projectId)).toHaveLength(1);
    expect(row).toMatchObject({ title: "An example alert message", severity: "critical", status: "triggered", eventCount: 2, payloadFormat: "opsgenie" });

    // The alias is the path segment as sent, decoded; what Opsgenie's clients send with a follow-up is kept with it.
    const alias = "Life is too short for no alias";
    expect(await post(projectPath, endpointOf([alias, "acknowledge"], byAlias), { user: "Monitoring Script", note: "On it" }, genieKey)).toEqual(accepted);
    [row] = await alertRows(projectId);
    expect(row).toMatchObject({ status: "acknowledged", eventCount: 2 });
    // Named any other way than by alias, the alert cannot be found: Opsgenie's 422, nothing changed.
    expect(await post(projectPath, endpointOf([alias, "close"]), {}, genieKey)).toEqual({
      status: 422,
      body: {
        message: "Request body is not processable. Please check the errors.",
        errors: { identifierType: "Alerts are identified by their alias here: identifierType=alias." },
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
    expect((await alertRows(projectId))[0]).toMatchObject({ status: "acknowledged" });
    expect(await post(projectPath, endpointOf([alias, "close"], byAlias), { source: "AWS Lambda" }, genieKey)).toEqual(accepted);
    const rows = await alertRows(projectId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "resolved", eventCount: 2 });
    const notes = await handle.db.select({ body: alertNotes.body }).from(alertNotes).where(eq(alertNotes.alertId, rows[0]!.id)).orderBy(alertNotes.id);
    expect(notes.map((note) => note.body)).toEqual([
      "logged an alert from **Opsgenie Alert API**",
      "logged an acknowledgement from **Opsgenie Alert API**",
      "changed the status to **Acknowledged**",
      "logged a recovery alert from **AWS Lambda**",
      "changed the status to **Resolved**",
    ]);

    // A close for an alias nothing has: accepted, as Opsgenie accepts it, and nothing opens.
    expect(await post(projectPath, endpointOf(["never-sent", "close"], byAlias), {}, genieKey)).toEqual(accepted);
    expect(await alertRows(projectId)).toHaveLength(1);
    expect(await post(projectPath, endpointOf([]), { priority: "P1" }, genieKey)).toEqual({
      status: 422,
      body: { message: "Request body is not processable. Please check the errors.", errors: { message: "Message can not be empty." }, requestId: expect.any(String) },
    });
    expect(await post(projectPath, endpointOf([]), opsgenieCreateAlert(), "GenieKey not-the-key")).toEqual({ status: 401, body: { message: "401 Unauthorized" } });
    // A GenieKey is the key only on the Opsgenie URL; anywhere a Bearer key is.
    expect(await post(projectPath, { kind: "identifier", identifier: integration.endpointIdentifier }, opsgenieCreateAlert(), genieKey)).toEqual({ status: 401, body: { message: "401 Unauthorized" } });
    expect(await post(projectPath, endpointOf([]), opsgenieCreateAlert(), `Bearer ${key}`)).toEqual(accepted);
    expect(parseReceiverPath([...base, alias, "snooze"], byAlias)).toBeNull();
    expect(parseReceiverPath([...base.slice(0, 5), "alert"])).toBeNull();
  });

  it("keeps an SNS subscription confirmation for Maintainers, opens nothing, and forgets it once the topic notifies", async () => {
    const { integration, projectId, projectPath } = await newIntegration();
    const endpoint: ReceiverEndpoint = { kind: "identifier", identifier: integration.endpointIdentifier };
    expect(await post(projectPath, endpoint, snsSubscriptionConfirmation())).toEqual({
      status: 200,
      body: { message: "The subscription confirmation is kept for a Maintainer to confirm on the integration's settings." },
    });
    const confirmation = async () =>
      (await handle.db.select().from(alertIntegrations).where(eq(alertIntegrations.id, integration.id)))[0]!.snsSubscriptionConfirmation;
    expect(await confirmation()).toEqual({
      topicArn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
      subscribeUrl: snsSubscriptionConfirmation().SubscribeURL,
      receivedAt: now.toISOString(),
    });
    expect(await alertRows(projectId)).toEqual([]);
    expect(await post(projectPath, endpoint, snsSubscriptionConfirmation("https://attacker.example/"))).toEqual({
      status: 400,
      body: { message: "'SubscribeURL' is not an Amazon SNS URL" },
    });
    expect(await post(projectPath, endpoint, cloudWatchAlarmNotification("INSUFFICIENT_DATA"))).toEqual({ status: 200, body: [] });
    expect(await confirmation()).not.toBeNull();
    await post(projectPath, endpoint, cloudWatchAlarmNotification("ALARM"));
    expect(await confirmation()).toBeNull();
  });

  it("reads every payload in an explicitly chosen format, and through a custom mapping when there is one", async () => {
    const { ctx, integration, projectId, projectPath } = await newIntegration("generic");
    const endpoint: ReceiverEndpoint = { kind: "identifier", identifier: integration.endpointIdentifier };
    // As generic, a Grafana body is one alert titled by its top-level title, its alerts unread.
    expect(await post(projectPath, endpoint, grafanaWebhook("firing"))).toEqual({ status: 200, body: [{ iid: 1, title: "[FIRING:1]  (blue)" }] });
    await updateIntegration(ctx, projectPath, integration.id, { payloadFormat: "azure" });
    expect(await post(projectPath, endpoint, grafanaWebhook("firing"))).toEqual({
      status: 400,
      body: { message: 'The payload is not an Azure Monitor alert in the common alert schema ("schemaId": "azureMonitorCommonAlertSchema").' },
    });
    await updateIntegration(ctx, projectPath, integration.id, {
      payloadAttributeMapping: { title: { path: ["receiver"], type: "string" }, fingerprint: { path: ["groupKey"], type: "string" } },
    });
    expect(await post(projectPath, endpoint, grafanaWebhook("firing"))).toEqual({ status: 200, body: [{ iid: 2, title: "My Super Webhook" }] });
    const rows = await alertRows(projectId);
    expect(rows.map((row) => [row.title, row.payloadFormat])).toEqual([
      ["[FIRING:1]  (blue)", "generic"],
      ["My Super Webhook", "generic"],
    ]);
    const [stored] = await handle.db.select().from(alertIntegrations).where(eq(alertIntegrations.id, integration.id));
    expect(stored!.lastPayloadFormat).toBe("generic");
  });
});
