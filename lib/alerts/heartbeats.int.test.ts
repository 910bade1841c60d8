import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import { alertIntegrations, alertNotes, alerts, issues } from "@/lib/db/schema";
import { ValidationError } from "@/lib/errors";
import { createProject } from "@/lib/projects/projects";
import { createPostgresDatabase, databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { startTokenCheckCache } from "@/lib/token-checks/checks";
import { fingerprintOf } from "./fingerprint";
import { checkHeartbeats } from "./heartbeats";
import { env } from "@/lib/env";
import { createIntegration, getIntegration, serializeIntegration, updateIntegration } from "./integrations";
import { receiverRequestOf } from "./receive";
import { answerReceiverCall, receiverTargetOf } from "./receiver-route";
import { updateAlertSettings } from "./settings";
import { sendTestAlert } from "./test-alert";

const t0 = new Date("2026-03-01T12:00:00Z");
const seconds = (count: number) => new Date(t0.getTime() + count * 1000);

/** A heartbeat expected every 5 minutes, a minute late at most: overdue 360 s after its last ping (or activation). */
async function newHeartbeat(db: Database, options: { active?: boolean; createIncident?: boolean } = {}) {
  const owner = await createTestUser(db);
  const ctx = { ...userContext(db, owner), now: t0 };
  const { project, namespace } = await createProject(ctx, { name: `Heartbeats ${uniqueSuffix()}` });
  if (options.createIncident) await updateAlertSettings(ctx, String(project.id), { createIncident: true });
  const created = await createIntegration(ctx, String(project.id), {
    name: "Nightly backup",
    type: "heartbeat",
    active: options.active ?? true,
    heartbeatIntervalSeconds: 300,
    heartbeatGraceSeconds: 60,
  });
  const token = (await serializeIntegration(ctx, created)).token!;
  return { ctx, owner, integration: created.integration, token, projectId: project.id, namespacePath: namespace.path, projectPath: project.path };
}

type Heartbeat = Awaited<ReturnType<typeof newHeartbeat>>;

/** A ping as the receiver's route hands it over, at `now`. */
function ping(db: Database, heartbeat: Heartbeat, init: { method?: "GET" | "POST"; query?: string; authorization?: string; body?: string } = {}) {
  const url = `http://localhost/${heartbeat.namespacePath}/${heartbeat.projectPath}/alerts/heartbeat/nightly-backup/${heartbeat.integration.endpointIdentifier}${init.query ?? ""}`;
  const method = init.method ?? "POST";
  const headers: Record<string, string> = init.authorization ? { authorization: init.authorization } : {};
  const request = new Request(url, { method, headers, body: method === "POST" ? (init.body ?? "") : undefined });
  const segments = ["heartbeat", "nightly-backup", heartbeat.integration.endpointIdentifier];
  return answerReceiverCall(async () => db, {
    method,
    target: receiverTargetOf(heartbeat.namespacePath, heartbeat.projectPath, ["alerts", ...segments], new URL(url).searchParams),
    request: receiverRequestOf(request),
  });
}

async function heartbeatRow(db: Database, id: number) {
  const [row] = await db.select().from(alertIntegrations).where(eq(alertIntegrations.id, id));
  return row!;
}

async function projectAlerts(db: Database, projectId: number) {
  return db.select().from(alerts).where(eq(alerts.projectId, projectId)).orderBy(asc(alerts.iid));
}

describe.each(testDatabases())("heartbeat integrations on $name", ({ name, open }) => {
  const handle = databaseForSuite(open);

  // The check looks at every heartbeat of the database: each test leaves none behind for the next one's check.
  afterEach(async () => {
    await handle.db.delete(alertIntegrations).where(eq(alertIntegrations.type, "heartbeat"));
  });

  it("is created waiting for its first ping, due interval plus grace after its creation", async () => {
    const { ctx, integration, namespacePath, projectPath } = await newHeartbeat(handle.db);
    expect(integration).toMatchObject({ type: "heartbeat", active: true, lastPingAt: null, nextDueAt: seconds(360), missedAlertOpen: false });
    const serialized = await serializeIntegration(ctx, await getIntegration(ctx, String(integration.projectId), integration.id));
    expect(serialized).toMatchObject({
      type: "heartbeat",
      url: `${env.EXTERNAL_URL}/${namespacePath}/${projectPath}/alerts/heartbeat/nightly-backup/${integration.endpointIdentifier}`,
      pagerduty_events_url: null,
      heartbeat: { interval_seconds: 300, grace_seconds: 60, last_ping_at: null, next_due_at: seconds(360).toISOString(), status: "waiting" },
    });
  });

  it("refuses intervals and grace periods out of range, and heartbeat settings on other types", async () => {
    const { ctx, integration } = await newHeartbeat(handle.db);
    const project = String(integration.projectId);
    const refusal = (input: Parameters<typeof createIntegration>[2]) => apiFailure(createIntegration(ctx, project, input));
    expect((await refusal({ name: "x", type: "heartbeat", heartbeatIntervalSeconds: 59 })).body()).toEqual({
      message: { heartbeat_interval_seconds: ["must be a whole number of seconds from 60 to 604800"] },
    });
    expect((await refusal({ name: "x", type: "heartbeat", heartbeatIntervalSeconds: 604_801, heartbeatGraceSeconds: -1 })).body()).toEqual({
      message: {
        heartbeat_interval_seconds: ["must be a whole number of seconds from 60 to 604800"],
        heartbeat_grace_seconds: ["must be a whole number of seconds from 0 to 604800"],
      },
    });
    expect((await refusal({ name: "x", type: "heartbeat" })).body()).toEqual({ message: { heartbeat_interval_seconds: ["can't be blank"] } });
    expect((await refusal({ name: "x", type: "http", heartbeatGraceSeconds: 60 })).body()).toEqual({
      message: { heartbeat_grace_seconds: ["is only for heartbeat integrations"] },
    });
    const update = await apiFailure(updateIntegration(ctx, project, integration.id, { heartbeatGraceSeconds: 604_801 }));
    expect(update).toBeInstanceOf(ValidationError);
    expect(update.status).toBe(400);
    expect(await heartbeatRow(handle.db, integration.id)).toMatchObject({ heartbeatIntervalSeconds: 300, heartbeatGraceSeconds: 60 });
  });

  it("fires one alert, and its incident, when a heartbeat misses; checks while it stays missed add nothing; a ping resolves it", async () => {
    const heartbeat = await newHeartbeat(handle.db, { createIncident: true });
    const { integration, projectId } = heartbeat;

    // Due at 360 s: not before.
    expect(await checkHeartbeats(handle.db, seconds(359))).toEqual({ fired: 0 });
    expect(await projectAlerts(handle.db, projectId)).toEqual([]);

    expect(await checkHeartbeats(handle.db, seconds(361))).toEqual({ fired: 1 });
    const [fired] = await projectAlerts(handle.db, projectId);
    expect(fired).toMatchObject({
      integrationId: integration.id,
      iid: 1,
      title: "Heartbeat Nightly backup missed",
      description: "No ping since the heartbeat was activated; a ping is expected every 300 s, 60 s late at most.",
      severity: "critical",
      status: "triggered",
      startedAt: seconds(360),
      endedAt: null,
      fingerprint: fingerprintOf({ heartbeat_integration_id: integration.id }),
      eventCount: 1,
      payloadFormat: "generic",
      payload: { heartbeat: "Nightly backup", status: "missed", interval_seconds: 300, grace_seconds: 60, last_ping_at: null, due_at: seconds(360).toISOString() },
    });
    expect(fired!.issueId).not.toBeNull();
    const [incident] = await handle.db.select().from(issues).where(eq(issues.id, fired!.issueId!));
    expect(incident).toMatchObject({ projectId, state: "opened", issueType: "incident" });
    expect(await heartbeatRow(handle.db, integration.id)).toMatchObject({ missedAlertOpen: true, nextDueAt: null, lastPingAt: null });

    // Still missed: later checks neither open another alert nor count on this one.
    expect(await checkHeartbeats(handle.db, seconds(3600))).toEqual({ fired: 0 });
    expect(await checkHeartbeats(handle.db, seconds(7200))).toEqual({ fired: 0 });
    expect((await projectAlerts(handle.db, projectId)).map((alert) => [alert.iid, alert.status, alert.eventCount])).toEqual([[1, "triggered", 1]]);
    const missed = await serializeIntegration(heartbeat.ctx, await getIntegration(heartbeat.ctx, String(projectId), integration.id));
    expect(missed.heartbeat).toEqual({ interval_seconds: 300, grace_seconds: 60, last_ping_at: null, next_due_at: null, status: "missed" });

    // The next ping resolves it (a recovery, through the same pipeline: its notes, the incident closed).
    const pingedAt = new Date();
    expect(await ping(handle.db, heartbeat, { authorization: `Bearer ${heartbeat.token}` })).toEqual({ status: 200, body: { status: "ok" } });
    const [resolved] = await projectAlerts(handle.db, projectId);
    expect(resolved).toMatchObject({ iid: 1, status: "resolved", eventCount: 1 });
    expect(resolved!.endedAt!.getTime()).toBeGreaterThanOrEqual(pingedAt.getTime());
    const notes = await handle.db.select().from(alertNotes).where(eq(alertNotes.alertId, resolved!.id)).orderBy(asc(alertNotes.id));
    expect(notes.map((note) => note.body)).toEqual([
      "logged an alert from **Nightly backup**",
      "created incident #1 for this alert",
      "logged a recovery alert from **Nightly backup**",
      "changed the status to **Resolved**",
    ]);
    const [closed] = await handle.db.select().from(issues).where(eq(issues.id, fired!.issueId!));
    expect(closed!.state).toBe("closed");
    const row = await heartbeatRow(handle.db, integration.id);
    expect(row).toMatchObject({ missedAlertOpen: false });
    expect(row.lastPingAt!.getTime()).toBeGreaterThanOrEqual(pingedAt.getTime());
    expect(row.nextDueAt).toEqual(new Date(row.lastPingAt!.getTime() + 360_000));

    // Up again: a second ping only moves the due time; the next miss opens a new alert.
    expect(await ping(handle.db, heartbeat, { authorization: `Bearer ${heartbeat.token}` })).toEqual({ status: 200, body: { status: "ok" } });
    const due = (await heartbeatRow(handle.db, integration.id)).nextDueAt!;
    expect(await checkHeartbeats(handle.db, new Date(due.getTime() + 1000))).toEqual({ fired: 1 });
    expect((await projectAlerts(handle.db, projectId)).map((alert) => [alert.iid, alert.status])).toEqual([
      [1, "resolved"],
      [2, "triggered"],
    ]);
  });

  it("counts from the last ping: a heartbeat pinged in time does not fire", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    await handle.db.update(alertIntegrations).set({ lastPingAt: seconds(300), nextDueAt: seconds(660) }).where(eq(alertIntegrations.id, heartbeat.integration.id));
    expect(await checkHeartbeats(handle.db, seconds(600))).toEqual({ fired: 0 });
    expect(await checkHeartbeats(handle.db, seconds(661))).toEqual({ fired: 1 });
    const [alert] = await projectAlerts(handle.db, heartbeat.projectId);
    expect(alert).toMatchObject({
      description: `No ping since ${seconds(300).toISOString()}; a ping is expected every 300 s, 60 s late at most.`,
      startedAt: seconds(660),
    });
  });

  it("takes the key as a Bearer token, as Basic's password or as the token query parameter, by POST with any body or by GET", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    const ok = { status: 200, body: { status: "ok" } };
    expect(await ping(handle.db, heartbeat, { method: "GET", query: `?token=${heartbeat.token}` })).toEqual(ok);
    expect(await ping(handle.db, heartbeat, { method: "POST", query: `?token=${heartbeat.token}`, body: "not json at all" })).toEqual(ok);
    expect(await ping(handle.db, heartbeat, { method: "GET", authorization: `Bearer ${heartbeat.token}` })).toEqual(ok);
    const basic = `Basic ${Buffer.from(`cron:${heartbeat.token}`).toString("base64")}`;
    expect(await ping(handle.db, heartbeat, { method: "POST", authorization: basic, body: '{"job":"backup"}' })).toEqual(ok);
    const row = await heartbeatRow(handle.db, heartbeat.integration.id);
    expect(row.lastPingAt).not.toBeNull();
    expect(row.nextDueAt).toEqual(new Date(row.lastPingAt!.getTime() + 360_000));
    // A ping is no change to the integration's settings.
    expect(row.updatedAt).toEqual(heartbeat.integration.updatedAt);
    expect(await projectAlerts(handle.db, heartbeat.projectId)).toEqual([]);
  });

  it("refuses a wrong or missing key with 401 and records nothing", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    const unauthorized = { status: 401, body: { message: "401 Unauthorized" } };
    expect(await ping(handle.db, heartbeat, { method: "GET", query: "?token=wrong" })).toEqual(unauthorized);
    expect(await ping(handle.db, heartbeat, { method: "POST", authorization: "Bearer wrong" })).toEqual(unauthorized);
    expect(await ping(handle.db, heartbeat, { method: "GET" })).toEqual(unauthorized);
    // A header, when there is one, is the key: a right token in the query does not make up for a wrong header.
    expect(await ping(handle.db, heartbeat, { method: "GET", authorization: "Bearer wrong", query: `?token=${heartbeat.token}` })).toEqual(unauthorized);
    expect(await heartbeatRow(handle.db, heartbeat.integration.id)).toMatchObject({ lastPingAt: null, nextDueAt: seconds(360) });
  });

  it("holds pings to the integration's rate limit, when it has one", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    await updateIntegration(heartbeat.ctx, String(heartbeat.projectId), heartbeat.integration.id, { rateLimitPerMinute: 1 });
    const key = { method: "GET" as const, query: `?token=${heartbeat.token}` };
    expect(await ping(handle.db, heartbeat, key)).toEqual({ status: 200, body: { status: "ok" } });
    const limited = await ping(handle.db, heartbeat, key);
    expect(limited).toMatchObject({ status: 429, body: { message: "This endpoint has been requested too many times. Try again later." } });
    expect(Number(limited.headers?.["Retry-After"])).toBeGreaterThanOrEqual(1);
  });

  it("answers a ping to an inactive heartbeat as the receiver answers an inactive integration, and waits for nothing while inactive", async () => {
    const heartbeat = await newHeartbeat(handle.db, { active: false });
    expect(heartbeat.integration.nextDueAt).toBeNull();
    const forbidden = { status: 403, body: { message: "403 Forbidden" } };
    expect(await ping(handle.db, heartbeat, { method: "GET", query: `?token=${heartbeat.token}` })).toEqual(forbidden);
    expect(await ping(handle.db, heartbeat, { method: "POST", authorization: `Bearer ${heartbeat.token}` })).toEqual(forbidden);
    expect(await checkHeartbeats(handle.db, seconds(30 * 24 * 3600))).toEqual({ fired: 0 });
    expect(await heartbeatRow(handle.db, heartbeat.integration.id)).toMatchObject({ lastPingAt: null, nextDueAt: null, missedAlertOpen: false });

    // Activated later: the wait starts then.
    const ctx = { ...heartbeat.ctx, now: seconds(1000) };
    const { integration } = await updateIntegration(ctx, String(heartbeat.projectId), heartbeat.integration.id, { active: true });
    expect(integration.nextDueAt).toEqual(seconds(1360));
    // A longer interval counts from the same start; deactivating stops the wait.
    const longer = await updateIntegration(ctx, String(heartbeat.projectId), heartbeat.integration.id, { heartbeatIntervalSeconds: 3600 });
    expect(longer.integration.nextDueAt).toEqual(seconds(1000 + 3660));
    const off = await updateIntegration(ctx, String(heartbeat.projectId), heartbeat.integration.id, { active: false });
    expect(off.integration.nextDueAt).toBeNull();
  });

  it("keeps its ping URL for pings: alerts posted to a heartbeat's notify URL, and GETs of other receiver URLs, are refused", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    const notify = ["alerts", "notify", "nightly-backup", heartbeat.integration.endpointIdentifier];
    const post = (method: "GET" | "POST") =>
      answerReceiverCall(async () => handle.db, {
        method,
        target: receiverTargetOf(heartbeat.namespacePath, heartbeat.projectPath, notify),
        request: receiverRequestOf(
          new Request("http://localhost/", { method, headers: { authorization: `Bearer ${heartbeat.token}` }, body: method === "POST" ? '{"title":"x"}' : undefined }),
        ),
      });
    expect(await post("POST")).toEqual({ status: 403, body: { message: "403 Forbidden" } });
    expect(await post("GET")).toEqual({ status: 405, body: { message: "405 Method Not Allowed" }, headers: { Allow: "POST" } });
    expect(await projectAlerts(handle.db, heartbeat.projectId)).toEqual([]);
  });

  it("refuses a test alert with 422, active or not, and records nothing", async () => {
    const active = await newHeartbeat(handle.db);
    const inactive = await newHeartbeat(handle.db, { active: false });
    for (const heartbeat of [active, inactive]) {
      const refusal = await apiFailure(sendTestAlert(heartbeat.ctx, String(heartbeat.projectId), heartbeat.integration.id, { title: "Test" }));
      expect([refusal.status, refusal.body()]).toEqual([422, { message: "A heartbeat integration takes pings, not alerts: it cannot send a test alert." }]);
      expect(await projectAlerts(handle.db, heartbeat.projectId)).toEqual([]);
    }
  });

  it("fires once when two checks run at once", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    const results = await Promise.all([checkHeartbeats(handle.db, seconds(400)), checkHeartbeats(handle.db, seconds(400))]);
    expect(results.map((result) => result.fired).sort()).toEqual([0, 1]);
    expect((await projectAlerts(handle.db, heartbeat.projectId)).map((alert) => [alert.iid, alert.eventCount])).toEqual([[1, 1]]);
  });

  it("still fires after a check that claimed it died before committing", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    // A replica claims the heartbeat, fires its alert, and crashes before the commit: all of it is rolled back.
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.select().from(alertIntegrations).where(eq(alertIntegrations.id, heartbeat.integration.id)).for("update", { skipLocked: true });
        await tx.update(alertIntegrations).set({ missedAlertOpen: true, nextDueAt: null }).where(eq(alertIntegrations.id, heartbeat.integration.id));
        throw new Error("the process died");
      }),
    ).rejects.toThrow("the process died");
    // The next check, by whichever process, has only the database to go by.
    expect(await checkHeartbeats(handle.db, seconds(400))).toEqual({ fired: 1 });
    expect((await projectAlerts(handle.db, heartbeat.projectId)).map((alert) => alert.title)).toEqual(["Heartbeat Nightly backup missed"]);
  });

  it("fires at most a batch per check, the longest overdue first, and the rest at the next", async () => {
    const first = await newHeartbeat(handle.db);
    const second = await newHeartbeat(handle.db);
    await handle.db.update(alertIntegrations).set({ nextDueAt: seconds(100) }).where(eq(alertIntegrations.id, second.integration.id));
    expect(await checkHeartbeats(handle.db, seconds(400), 1)).toEqual({ fired: 1 });
    expect(await projectAlerts(handle.db, second.projectId)).toHaveLength(1);
    expect(await projectAlerts(handle.db, first.projectId)).toHaveLength(0);
    expect(await checkHeartbeats(handle.db, seconds(400), 1)).toEqual({ fired: 1 });
    expect(await projectAlerts(handle.db, first.projectId)).toHaveLength(1);
  });

  it.skipIf(name === "pglite")("skips a heartbeat another replica is firing instead of waiting for it", async () => {
    const heartbeat = await newHeartbeat(handle.db);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const otherReplica = handle.db.transaction(async (tx) => {
      await tx.select().from(alertIntegrations).where(eq(alertIntegrations.id, heartbeat.integration.id)).for("update");
      locked();
      await held;
      await tx.update(alertIntegrations).set({ missedAlertOpen: true, nextDueAt: null }).where(eq(alertIntegrations.id, heartbeat.integration.id));
    });
    await isLocked;
    expect(await checkHeartbeats(handle.db, seconds(400))).toEqual({ fired: 0 });
    release();
    await otherReplica;
    expect(await checkHeartbeats(handle.db, seconds(400))).toEqual({ fired: 0 });
  });
});

/** Two server processes on one PostgreSQL database, and a third started after the first stopped. */
describe.runIf(process.env.TEST_DATABASE_URL)("heartbeat checks across replicas on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  const handles: DatabaseHandle[] = [];
  const replica = async () => {
    const handle = await openDatabase({ url: database.url, poolSize: 2 });
    handles.push(handle);
    return handle;
  };

  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    const first = await replica();
    await first.migrate();
    await startTokenCheckCache(first);
  });
  afterAll(async () => {
    for (const handle of handles) await handle.close().catch(() => {});
    await database.drop();
  });

  it("fires a missed heartbeat once from two replicas checking at once, and a restarted one resolves and fires from the database alone", async () => {
    const a = handles[0]!;
    const b = await replica();
    const heartbeat = await newHeartbeat(a.db);
    const results = await Promise.all([checkHeartbeats(a.db, seconds(400)), checkHeartbeats(b.db, seconds(400))]);
    expect(results.map((result) => result.fired).sort()).toEqual([0, 1]);
    expect((await projectAlerts(a.db, heartbeat.projectId)).map((alert) => [alert.iid, alert.status, alert.eventCount])).toEqual([[1, "triggered", 1]]);

    // Replica a stops; a process started afterwards knows only what the database holds.
    await a.close();
    const c = await replica();
    expect(await checkHeartbeats(c.db, seconds(500))).toEqual({ fired: 0 });
    expect(await ping(c.db, heartbeat, { method: "GET", query: `?token=${heartbeat.token}` })).toEqual({ status: 200, body: { status: "ok" } });
    expect((await projectAlerts(c.db, heartbeat.projectId)).map((alert) => alert.status)).toEqual(["resolved"]);
    const due = (await heartbeatRow(c.db, heartbeat.integration.id)).nextDueAt!;
    await c.close();
    const d = await replica();
    expect(await checkHeartbeats(d.db, new Date(due.getTime() + 1000))).toEqual({ fired: 1 });
    expect(
      await d.db
        .select({ iid: alerts.iid, status: alerts.status })
        .from(alerts)
        .where(and(eq(alerts.projectId, heartbeat.projectId)))
        .orderBy(asc(alerts.iid)),
    ).toEqual([
      { iid: 1, status: "resolved" },
      { iid: 2, status: "triggered" },
    ]);
  });
});
