import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { alerts, alertSilences } from "@/lib/db/schema";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { dropConnections, eventually, listeningConnections, settle, twoProcesses } from "@/lib/testing/notifications";
import { createIntegration } from "./integrations";
import { applyPayload } from "./receive";
import { cachedSilenceProjects, maxCachedSilencesPerProject, startSilenceCache } from "./silence-cache";
import type { WeeklyRecurrence } from "./silence-rules";
import { createSilence, deleteSilence, silenceHolding, updateSilence, type FiringFields } from "./silences";

// 2026-05-01 is a Friday: 10:00Z is 12:00 in Berlin.
const now = new Date("2026-05-01T10:00:00Z");
const minutes = (count: number) => new Date(now.getTime() + count * 60_000);

async function silencedProject(db: Database) {
  const owner = await createTestUser(db);
  const ctx = { ...userContext(db, owner), now };
  const { project } = await createProject(ctx, { name: `Cached silences ${uniqueSuffix()}` });
  const reference = String(project.id);
  const { integration } = await createIntegration(ctx, reference, { name: "Monitor", type: "http", active: true });
  return { ctx, reference, integration, projectId: project.id };
}

type Project = Awaited<ReturnType<typeof silencedProject>>;

/** Two alerts that differ in every field a matcher reads, payload values of every JSON type included. */
function firingAlerts(project: Project): Record<"disk" | "cpu", FiringFields> {
  const integration = { id: project.integration.id, name: project.integration.name };
  return {
    disk: {
      projectId: project.projectId,
      integration,
      title: "Disk full",
      severity: "critical",
      service: "db",
      environment: null,
      monitoringTool: "Prometheus",
      hosts: ["db-1", "db-2"],
      payload: { labels: { team: "storage", tier: 1 }, flag: true, nothing: null, list: ["x"], nested: { a: { b: "deep" } } },
    },
    cpu: {
      projectId: project.projectId,
      integration,
      title: "CPU",
      severity: "low",
      service: null,
      environment: "production",
      monitoringTool: null,
      hosts: [],
      payload: { labels: { team: "web" }, flag: false },
    },
  };
}

/** Whether the silence holds each alert, in this process (`db` with its cache) and in the database alone (a transaction, which no cache serves). */
async function heldAlerts(db: Database, firing: Record<string, FiringFields>, silenceId: number, at = now) {
  const held = { cached: [] as string[], database: [] as string[] };
  for (const [name, alert] of Object.entries(firing)) {
    if ((await silenceHolding(db, alert, at))?.silenceId === silenceId) held.cached.push(name);
    if ((await db.transaction((tx) => silenceHolding(tx, alert, at)))?.silenceId === silenceId) held.database.push(name);
  }
  return held;
}

const alwaysOpen = { endsAt: minutes(60) };
const fridayNoonBerlin: WeeklyRecurrence = { days: ["fri"], start_time: "11:00", end_time: "13:00", time_zone: "Europe/Berlin" };

describe.each(testDatabases())("silences matched from the in-process copy on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("matches every kind of matcher and window as the database does", async () => {
    const project = await silencedProject(handle.db);
    const firing = firingAlerts(project);
    // Each silence alone, and which of the two alerts it holds.
    const cases: { matchers: string[]; window?: { startsAt?: Date; endsAt?: Date; recurrence?: WeeklyRecurrence }; held: string[] }[] = [
      { matchers: ['service="db"'], held: ["disk"] },
      { matchers: ['service=""'], held: ["cpu"] },
      { matchers: ['service!="db"'], held: ["cpu"] },
      { matchers: ['environment!=""'], held: ["cpu"] },
      { matchers: ['monitoring_tool=""'], held: ["cpu"] },
      { matchers: ['severity="critical"', 'title="Disk full"'], held: ["disk"] },
      { matchers: ['host="db-2"'], held: ["disk"] },
      { matchers: ['host=""'], held: ["cpu"] },
      { matchers: ['host!="db-1"'], held: ["cpu"] },
      { matchers: ['integration="Monitor"'], held: ["disk", "cpu"] },
      { matchers: [`integration="${project.integration.id}"`], held: ["disk", "cpu"] },
      { matchers: ['integration!="Other"', 'service="db"'], held: ["disk"] },
      { matchers: ['payload.labels.team="storage"'], held: ["disk"] },
      { matchers: ['payload.labels.tier="1"'], held: ["disk"] },
      { matchers: ['payload.flag="true"'], held: ["disk"] },
      { matchers: ['payload.nothing=""'], held: ["disk", "cpu"] },
      { matchers: ['payload.labels.team.name=""'], held: ["disk", "cpu"] },
      { matchers: ['payload.list.0="x"'], held: ["disk"] },
      { matchers: ['payload.nested.a.b="deep"'], held: ["disk"] },
      { matchers: ['payload.nested.a="{\\"b\\": \\"deep\\"}"'], held: ["disk"] },
      { matchers: ['title=~"(?i)disk.*"', 'severity="critical"'], held: ["disk"] },
      { matchers: ['title!~"Disk.*"'], held: ["cpu"] },
      { matchers: ['severity="critical"', 'title=~"nothing"'], held: [] },
      { matchers: ['service="db"'], window: { recurrence: fridayNoonBerlin }, held: ["disk"] },
      { matchers: ['service="db"'], window: { recurrence: { ...fridayNoonBerlin, days: ["mon"] } }, held: [] },
      { matchers: ['service="db"'], window: { startsAt: minutes(10), endsAt: minutes(20) }, held: [] },
    ];
    const results = [];
    for (const { matchers, window = alwaysOpen } of cases) {
      const { silence } = await createSilence(project.ctx, project.reference, { matchers, ...window, reason: "Case" });
      results.push({ matchers, ...(await heldAlerts(handle.db, firing, silence.id)) });
      await deleteSilence(project.ctx, project.reference, silence.id);
    }
    expect(results).toEqual(cases.map(({ matchers, held }) => ({ matchers, cached: held, database: held })));
  });

  it("hears of silences written outside its verbs, through the trigger's notification", async () => {
    const project = await silencedProject(handle.db);
    const { disk } = firingAlerts(project);
    expect(await silenceHolding(handle.db, disk, now)).toBeNull();
    const [row] = await handle.db
      .insert(alertSilences)
      .values({ projectId: project.projectId, matchers: [{ name: "service", op: "=", value: "db" }], startsAt: minutes(-1), endsAt: minutes(30), reason: "By hand", createdAt: now, updatedAt: now })
      .returning();
    await eventually(async () => expect((await silenceHolding(handle.db, disk, now))?.silenceId).toBe(row!.id));
    await handle.db.delete(alertSilences).where(eq(alertSilences.id, row!.id));
    await eventually(async () => expect(await silenceHolding(handle.db, disk, now)).toBeNull());
  });

  it("never holds an alert with a copy that a change it has not heard of made stale", async () => {
    const project = await silencedProject(handle.db);
    const { silence: deleted } = await createSilence(project.ctx, project.reference, { matchers: ['service="db"'], ...alwaysOpen, reason: "Deleted" });
    const { silence: changed } = await createSilence(project.ctx, project.reference, { matchers: ['service="web"'], ...alwaysOpen, reason: "Changed" });
    const fire = (title: string, service: string) => applyPayload(handle.db, project.integration, { title, service }, now);
    await fire("Warm", "none");
    await unannounced(handle.db, async () => {
      await handle.db.delete(alertSilences).where(eq(alertSilences.id, deleted.id));
      await handle.db.update(alertSilences).set({ matchers: [{ name: "service", op: "=", value: "web" }], endsAt: minutes(5) }).where(eq(alertSilences.id, changed.id));
    });
    // The copy still has both as they were.
    expect((await silenceHolding(handle.db, { ...firingAlerts(project).cpu, service: "db" }, now))?.silenceId).toBe(deleted.id);
    await fire("Database", "db");
    await fire("Web", "web");
    const rows = await handle.db
      .select({ title: alerts.title, silencedById: alerts.silencedById, notifyAfter: alerts.notifyAfter })
      .from(alerts)
      .where(and(eq(alerts.projectId, project.projectId)))
      .orderBy(alerts.id);
    expect(rows).toEqual([
      { title: "Warm", silencedById: null, notifyAfter: null },
      { title: "Database", silencedById: null, notifyAfter: null },
      { title: "Web", silencedById: null, notifyAfter: null },
    ]);
    // Told of the change, the copy holds the alert by the silence as it now is.
    await updateSilence(project.ctx, project.reference, changed.id, { matchers: ['service="web"'], endsAt: minutes(5), reason: "Changed" });
    await fire("Web again", "web");
    const [again] = await handle.db.select().from(alerts).where(and(eq(alerts.projectId, project.projectId), eq(alerts.title, "Web again")));
    expect([again!.silencedById, again!.notifyAfter]).toEqual([changed.id, minutes(5)]);
  });

  it("matches a project with more silences than the copy keeps in the database", async () => {
    const project = await silencedProject(handle.db);
    const count = maxCachedSilencesPerProject + 1;
    await handle.db.execute(sql`insert into ${alertSilences} (project_id, matchers, equalities, starts_at, ends_at, reason, created_at, updated_at)
      select ${project.projectId}, jsonb_build_array(jsonb_build_object('name', 'service', 'op', '=', 'value', 'svc-' || n)),
        jsonb_build_object('service', 'svc-' || n), ${minutes(-1).toISOString()}::timestamptz, ${minutes(60).toISOString()}::timestamptz, 'Bulk',
        ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
      from generate_series(1, ${count}) as n`);
    const [last] = await handle.db.select({ id: alertSilences.id }).from(alertSilences).where(and(eq(alertSilences.projectId, project.projectId), eq(alertSilences.reason, "Bulk"))).orderBy(sql`id desc`).limit(1);
    await settle();
    const hold = await silenceHolding(handle.db, { ...firingAlerts(project).cpu, service: `svc-${count}` }, now);
    expect(hold && { silenceId: hold.silenceId, until: hold.until }).toEqual({ silenceId: last!.id, until: minutes(60) });
    expect(await silenceHolding(handle.db, { ...firingAlerts(project).cpu, service: "svc-none" }, now)).toBeNull();
  });
  it("keeps no copy of a project whose matchers are longer than an entry keeps, and asks the database each time", async () => {
    // Sixteen matchers of about a kilobyte each, three times: more than an entry's 32 KiB of matcher text.
    const long = (n: number) => Array.from({ length: 16 }, (_, i) => `payload.note${i}="${String(n).repeat(1000)}"`);
    const big = await silencedProject(handle.db);
    for (const n of [1, 2, 3]) await createSilence(big.ctx, big.reference, { matchers: long(n), ...alwaysOpen, reason: "Long" });
    const small = await silencedProject(handle.db);
    await createSilence(small.ctx, small.reference, { matchers: ['service="none"'], ...alwaysOpen, reason: "Short" });
    const disk = (project: Project) => ({ ...firingAlerts(project).disk, service: "db" });
    // Each project's silences are read once (a copy, or the decision to keep none)...
    expect([await silenceHolding(handle.db, disk(big), now), await silenceHolding(handle.db, disk(small), now)]).toEqual([null, null]);
    // ...then a silence written unannounced is seen only where the database matches.
    const inserted: number[] = [];
    await unannounced(handle.db, async () => {
      for (const project of [big, small]) {
        const [row] = await handle.db
          .insert(alertSilences)
          .values({ projectId: project.projectId, matchers: [{ name: "service", op: "=", value: "db" }], startsAt: minutes(-1), endsAt: minutes(30), reason: "Unannounced", createdAt: now, updatedAt: now })
          .returning({ id: alertSilences.id });
        inserted.push(row!.id);
      }
    });
    expect([(await silenceHolding(handle.db, disk(big), now))?.silenceId, await silenceHolding(handle.db, disk(small), now)]).toEqual([inserted[0], null]);
  });
});

/** Runs `change` with the silences' notification trigger off: what the caches hear of it is up to the test. */
async function unannounced(db: Database, change: () => Promise<unknown>): Promise<void> {
  await db.execute(sql.raw(`alter table "alert_silences" disable trigger user`));
  try {
    await change();
  } finally {
    await db.execute(sql.raw(`alter table "alert_silences" enable trigger user`));
  }
}

const serverUrl = process.env.TEST_DATABASE_URL;

describe.runIf(serverUrl)("silences across processes on PostgreSQL", () => {
  let processes: Awaited<ReturnType<typeof twoProcesses>>;
  let here: DatabaseHandle;
  let there: DatabaseHandle;

  beforeAll(async () => {
    processes = await twoProcesses(serverUrl!);
    ({ here, there } = processes);
    await startSilenceCache(here);
    // A small bound, to see it kept.
    await startSilenceCache(there, 2);
  });
  afterAll(() => processes.close());

  it("a silence created, changed or deleted in one process holds or stops holding in the other within moments", async () => {
    const project = await silencedProject(here.db);
    const { disk } = firingAlerts(project);
    expect(await silenceHolding(there.db, disk, now)).toBeNull();
    const { silence } = await createSilence(project.ctx, project.reference, { matchers: ['service="db"'], ...alwaysOpen, reason: "Upgrade" });
    await eventually(async () => expect((await silenceHolding(there.db, disk, now))?.silenceId).toBe(silence.id));
    await updateSilence(project.ctx, project.reference, silence.id, { matchers: ['service="web"'], ...alwaysOpen, reason: "Upgrade" });
    await eventually(async () => expect(await silenceHolding(there.db, disk, now)).toBeNull());
    await updateSilence(project.ctx, project.reference, silence.id, { matchers: ['service="db"'], ...alwaysOpen, reason: "Upgrade" });
    await eventually(async () => expect((await silenceHolding(there.db, disk, now))?.silenceId).toBe(silence.id));
    await deleteSilence(project.ctx, project.reference, silence.id);
    await eventually(async () => expect(await silenceHolding(there.db, disk, now)).toBeNull());
  });

  it("forgets every copy when its notification connection drops, and keeps at most its bound of projects", async () => {
    const projects = [await silencedProject(here.db), await silencedProject(here.db), await silencedProject(here.db)];
    await settle();
    for (const project of projects) expect(await silenceHolding(there.db, firingAlerts(project).disk, now)).toBeNull();
    expect(cachedSilenceProjects(there.db)).toBe(2);

    // The most recently used project is still kept.
    const first = projects[2];
    let row: { id: number } | undefined;
    await unannounced(here.db, async () => {
      [row] = await here.db
        .insert(alertSilences)
        .values({ projectId: first!.projectId, matchers: [{ name: "service", op: "=", value: "db" }], startsAt: minutes(-1), endsAt: minutes(30), reason: "Unheard", createdAt: now, updatedAt: now })
        .returning({ id: alertSilences.id });
    });
    // Unheard of, the silence is missing from the copy until the connection drops.
    expect(await silenceHolding(there.db, firingAlerts(first!).disk, now)).toBeNull();
    const before = await listeningConnections(here.db);
    expect(before).toHaveLength(2);
    await dropConnections(here.db, before);
    await eventually(async () => expect((await silenceHolding(there.db, firingAlerts(first!).disk, now))?.silenceId).toBe(row!.id));
    await eventually(async () => {
      const after = await listeningConnections(here.db);
      expect(after).toHaveLength(2);
      expect(after.some((pid) => before.includes(pid))).toBe(false);
    });
    await deleteSilence(first!.ctx, first!.reference, row!.id);
    await eventually(async () => expect(await silenceHolding(there.db, firingAlerts(first!).disk, now)).toBeNull());
  });
});
