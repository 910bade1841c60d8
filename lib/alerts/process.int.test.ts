import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { alertIntegrations, alertNotes, alertRateWindows, alerts } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { ValidationError } from "@/lib/errors";
import { createIntegration, updateIntegration } from "./integrations";
import { fingerprintOf } from "./fingerprint";
import { applyPayload, maxAlertsPerPayload, receiveAlert, receiverRequestOf } from "./receive";

describe.each(testDatabases())("alert processing on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function newIntegration() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const { project, namespace } = await createProject(ctx, { name: `Alerts ${uniqueSuffix()}` });
    const { integration } = await createIntegration(ctx, String(project.id), { name: "Monitor", type: "http", active: true });
    return { ctx, integration, projectId: project.id, projectPath: `${namespace.path}/${project.path}` };
  }

  const now = new Date("2026-03-01T12:00:00Z");

  it("groups repeats of a fingerprint into one open alert and counts them", async () => {
    const { integration, projectId } = await newIntegration();
    const payload = {
      title: "Disk",
      description: "Disk 91% full",
      severity: "high",
      start_time: "2026-03-01T11:59:00Z",
      service: "db",
      monitoring_tool: "Zabbix",
      hosts: ["db-1", "db-2"],
      gitlab_environment_name: "production",
      fingerprint: "disk",
    };
    const first = await applyPayload(handle.db, integration, payload, now);
    const second = await applyPayload(handle.db, integration, { ...payload, description: "Disk 95% full" }, now);
    expect(first).toEqual({ status: 200, body: [{ iid: 1, title: "Disk" }] });
    expect(second).toEqual({ status: 200, body: [{ iid: 1, title: "Disk" }] });
    const rows = await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId));
    expect(rows).toEqual([
      {
        id: rows[0]!.id,
        projectId,
        integrationId: integration.id,
        iid: 1,
        title: "Disk",
        description: "Disk 91% full",
        severity: "high",
        status: "triggered",
        startedAt: new Date("2026-03-01T11:59:00Z"),
        endedAt: null,
        monitoringTool: "Zabbix",
        service: "db",
        hosts: ["db-1", "db-2"],
        environment: "production",
        fingerprint: fingerprintOf("disk"),
        eventCount: 2,
        payload,
        payloadFormat: "generic",
        issueId: null,
        silencedById: null,
        snoozedUntil: null,
        snoozedUntilResolved: false,
        notifyAfter: null,
        createdAt: now,
        updatedAt: now,
      },
    ]);
    // The repeat only counts: the alert keeps its first payload and its one "logged" note.
    const notes = await handle.db.select().from(alertNotes).where(eq(alertNotes.alertId, rows[0]!.id));
    expect(notes.map((note) => note.body)).toEqual(["logged an alert from **Zabbix**"]);
  });

  it("groups identical payloads without a fingerprint, ignoring start_time and hosts", async () => {
    const { integration, projectId } = await newIntegration();
    await applyPayload(handle.db, integration, { title: "CPU", start_time: "2026-01-01T00:00:00Z", hosts: ["a"] }, now);
    await applyPayload(handle.db, integration, { title: "CPU", start_time: "2026-01-02T00:00:00Z", hosts: ["b"] }, now);
    await applyPayload(handle.db, integration, { title: "CPU", service: "other" }, now);
    const rows = await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId)).orderBy(alerts.iid);
    expect(rows.map((row) => [row.iid, row.eventCount])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it("resolves the open alert on recovery, then opens a new one when the problem comes back", async () => {
    const { integration, projectId } = await newIntegration();
    await applyPayload(handle.db, integration, { title: "Down", fingerprint: "svc" }, now);
    const recovery = await applyPayload(handle.db, integration, { fingerprint: "svc", end_time: "2026-03-01T12:30:00Z" }, now);
    expect(recovery).toEqual({ status: 200, body: [{ iid: 1, title: "Down" }] });
    const again = await applyPayload(handle.db, integration, { title: "Down", fingerprint: "svc" }, now);
    expect(again).toEqual({ status: 200, body: [{ iid: 2, title: "Down" }] });
    const rows = await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId)).orderBy(alerts.iid);
    expect(rows.map((row) => [row.iid, row.status, row.endedAt?.toISOString() ?? null])).toEqual([
      [1, "resolved", "2026-03-01T12:30:00.000Z"],
      [2, "triggered", null],
    ]);
    const notes = await handle.db.select().from(alertNotes).where(eq(alertNotes.alertId, rows[0]!.id)).orderBy(alertNotes.id);
    expect(notes.map((note) => note.body)).toEqual([
      "logged an alert from **Monitor**",
      "logged a recovery alert from **Monitor**",
      "changed the status to **Resolved**",
    ]);
  });

  it("answers a recovery with nothing to resolve with an empty list and creates nothing", async () => {
    const { integration, projectId } = await newIntegration();
    expect(await applyPayload(handle.db, integration, { fingerprint: "none", end_time: "2026-03-01T12:30:00Z" }, now)).toEqual({
      status: 200,
      body: [],
    });
    expect(await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId))).toEqual([]);
  });

  it("turns 100 concurrent posts of one fingerprinted payload into exactly one alert with 100 events", async () => {
    const { integration, projectId } = await newIntegration();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => applyPayload(handle.db, integration, { title: "Storm", fingerprint: "storm" }, now)),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const rows = await handle.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.projectId, projectId), eq(alerts.title, "Storm")));
    // Concurrent first occurrences may each take a number before one wins, so only the count is exact, not the #iid.
    expect(rows).toMatchObject([{ eventCount: 100, status: "triggered" }]);
  });

  it("creates one alert per Alertmanager alert and resolves them with the resolved notification (201)", async () => {
    const { integration, projectId } = await newIntegration();
    const webhook = (status: "firing" | "resolved") => ({
      version: "4",
      groupKey: "g",
      status,
      receiver: "r",
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: "http://alertmanager",
      alerts: ["A", "B"].map((name) => ({
        status,
        labels: { alertname: name, severity: "warning" },
        annotations: {},
        startsAt: "2026-03-01T11:00:00Z",
        endsAt: status === "resolved" ? "2026-03-01T11:30:00Z" : "0001-01-01T00:00:00Z",
        generatorURL: "http://prometheus/graph?g0.expr=up",
      })),
    });
    expect(await applyPayload(handle.db, integration, webhook("firing"), now)).toEqual({
      status: 201,
      body: [
        { iid: 1, title: "A" },
        { iid: 2, title: "B" },
      ],
    });
    await applyPayload(handle.db, integration, webhook("resolved"), now);
    const rows = await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId)).orderBy(alerts.iid);
    expect(rows.map((row) => [row.title, row.severity, row.status, row.monitoringTool])).toEqual([
      ["A", "low", "resolved", "Prometheus"],
      ["B", "low", "resolved", "Prometheus"],
    ]);
  });

  it("keeps only the current minute's rate-limit window of an integration", async () => {
    const { integration, projectPath } = await newIntegration();
    await handle.db
      .update(alertIntegrations)
      .set({ rateLimitPerMinute: 100, tokenDigest: sha256Hex("rate-limit-test-key") })
      .where(eq(alertIntegrations.id, integration.id));
    const target = { projectPath, endpoint: { kind: "identifier" as const, identifier: integration.endpointIdentifier } };
    const send = (at: string) =>
      receiveAlert(
        handle.db,
        target,
        receiverRequestOf(
          new Request("http://localhost/", {
            method: "POST",
            headers: { Authorization: "Bearer rate-limit-test-key" },
            body: JSON.stringify({ title: "Load", fingerprint: "load" }),
          }),
        ),
        new Date(at),
      );
    const windows = async () =>
      (await handle.db.select().from(alertRateWindows).where(eq(alertRateWindows.integrationId, integration.id)))
        .map((window) => [window.windowStart.toISOString(), window.requestCount])
        .sort();

    expect((await send("2026-03-01T12:00:10Z")).status).toBe(200);
    expect((await send("2026-03-01T12:00:50Z")).status).toBe(200);
    expect(await windows()).toEqual([["2026-03-01T12:00:00.000Z", 2]]);
    expect((await send("2026-03-01T12:03:05Z")).status).toBe(200);
    expect(await windows()).toEqual([["2026-03-01T12:03:00.000Z", 1]]);
  });

  it("refuses a mapping through a name every object inherits, unless the sample holds that key itself", async () => {
    const { ctx, integration, projectId } = await newIntegration();
    for (const path of [["constructor"], ["toString"], ["__proto__"], ["alert", "constructor", "name"], ["items", { each: true }, "hasOwnProperty"]]) {
      const refused = updateIntegration(ctx, String(projectId), integration.id, {
        payloadExample: JSON.stringify({ alert: { name: "x" }, items: [{}] }),
        payloadAttributeMapping: { hosts: { path, type: path.some((step) => typeof step === "object") ? "array" : "string" } as never },
      });
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
      await expect(refused).rejects.toMatchObject({
        errors: { payload_attribute_mapping: [`hosts reads "${path.find((step) => typeof step === "string" && step in Object.prototype)}", which is not a key of the sample payload`] },
      });
    }
    // A sample that has such a key itself makes it a key like any other.
    const saved = await updateIntegration(ctx, String(projectId), integration.id, {
      payloadExample: '{"constructor": {"name": "Disk full"}}',
      payloadAttributeMapping: { title: { path: ["constructor", "name"], type: "string" } },
    });
    expect(saved.integration.payloadAttributeMapping).toEqual({ title: { path: ["constructor", "name"], type: "string" } });
    expect(await applyPayload(handle.db, saved.integration, JSON.parse('{"constructor": {"name": "Mine"}}'), now)).toEqual({
      status: 200,
      body: [{ iid: 1, title: "Mine" }],
    });
  });

  it("reads a stored mapping through inherited names as finding nothing: the alert is recorded with its defaults", async () => {
    const { integration, projectId } = await newIntegration();
    const mapping = {
      title: { path: ["constructor", "name"], type: "string" },
      description: { path: ["toString"], type: "string" },
      service: { path: ["__proto__"], type: "string" },
      hosts: { path: ["constructor"], type: "string" },
      fingerprint: { path: ["valueOf"], type: "string" },
    };
    // Saved before mappings were checked for inherited names.
    const [stored] = await handle.db
      .update(alertIntegrations)
      .set({ payloadAttributeMapping: mapping as never })
      .where(eq(alertIntegrations.id, integration.id))
      .returning();
    expect(await applyPayload(handle.db, stored!, { note: "anything" }, now)).toEqual({ status: 200, body: [{ iid: 1, title: "New: Alert" }] });
    const [row] = await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId));
    expect(row).toMatchObject({ title: "New: Alert", description: null, service: null, hosts: [], fingerprint: fingerprintOf({ note: "anything" }) });
  });

  it("records at most the first 100 alerts of one payload, as GitLab does with Alertmanager's", async () => {
    const { integration, projectId } = await newIntegration();
    const names = Array.from({ length: 150 }, (_, index) => `Alert ${index}`);
    const webhook = {
      version: "4",
      groupKey: "{}",
      status: "firing",
      receiver: "gitlab",
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: "http://alertmanager.invalid",
      alerts: names.map((name) => ({ status: "firing", labels: { alertname: name }, annotations: {}, startsAt: "2026-03-01T11:00:00Z" })),
    };
    const answer = await applyPayload(handle.db, integration, webhook, now);
    expect(maxAlertsPerPayload).toBe(100);
    expect(answer).toEqual({ status: 201, body: names.slice(0, 100).map((title, index) => ({ iid: index + 1, title })) });
    expect(await handle.db.$count(alerts, eq(alerts.projectId, projectId))).toBe(100);
  });

  it("answers a payload over GitLab's size or depth limit with a bare 400 before looking at the key", async () => {
    const { integration, projectPath } = await newIntegration();
    const target = { projectPath, endpoint: { kind: "identifier" as const, identifier: integration.endpointIdentifier } };
    const post = (body: string) =>
      receiveAlert(handle.db, target, receiverRequestOf(new Request("http://localhost/", { method: "POST", body })), now);
    const manyKeys = JSON.stringify(Object.fromEntries(Array.from({ length: 30_000 }, (_, index) => [index.toString(36), 0])));
    expect(await post(manyKeys)).toEqual({ status: 400 });
    expect(await post(`${'{"a":'.repeat(101)}1${"}".repeat(101)}`)).toEqual({ status: 400 });
    expect(await post(`${'{"a":'.repeat(100)}1${"}".repeat(100)}`)).toEqual({ status: 401, body: { message: "401 Unauthorized" } });
  });
});
