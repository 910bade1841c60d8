import { describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import { alertIntegrations, alertNotes, alerts, alertSilences, outboxMessages } from "@/lib/db/schema";
import { BadRequestError, ForbiddenError, NotFoundError } from "@/lib/errors";
import { saveIntegration } from "@/lib/integrations/integrations";
import { chatNotificationTopic } from "@/lib/integrations/topic";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { getAlert, listAlerts, serializeAlert, updateAlert } from "./alerts";
import { alertEmailTopic } from "./email";
import { createIntegration } from "./integrations";
import { applyPayload, receiveAlert, receiverRequestOf } from "./receive";
import { updateAlertSettings } from "./settings";
import { createSilence, deleteSilence, getSilence, listSilences, pruneExpiredSilences, releaseHeldAlerts, serializeSilence, updateSilence } from "./silences";

describe.each(testDatabases())("silences and snoozes on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const page = { page: 1, perPage: 20, offset: 0 };
  const now = new Date("2026-05-01T10:00:00Z");
  const minutes = (count: number) => new Date(now.getTime() + count * 60_000);

  /** A project that notifies every way it can: incidents, alert emails and a chat integration that takes alerts. */
  async function notifyingProject() {
    const owner = await createTestUser(handle.db);
    const ctx = { ...userContext(handle.db, owner), now };
    const { project, namespace } = await createProject(ctx, { name: `Silences ${uniqueSuffix()}` });
    const reference = String(project.id);
    const { integration } = await createIntegration(ctx, reference, { name: "Monitor", type: "http", active: true });
    await updateAlertSettings(ctx, reference, { createIncident: true, sendEmail: true });
    const slack = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/silences" });
    return { owner, ctx, reference, integration, projectId: project.id, projectPath: `${namespace.path}/${project.path}`, slackId: slack.integration.id };
  }

  type Project = Awaited<ReturnType<typeof notifyingProject>>;

  async function alertNamed(project: Project, fingerprint: string) {
    const [row] = await handle.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.projectId, project.projectId), eq(alerts.iid, (await iidOf(project, fingerprint))!)));
    return row!;
  }

  async function iidOf(project: Project, title: string) {
    const [row] = await handle.db.select({ iid: alerts.iid }).from(alerts).where(and(eq(alerts.projectId, project.projectId), eq(alerts.title, title)));
    return row?.iid;
  }

  /** What the outbox holds for the project: alert emails by kind, and chat messages to its Slack integration. */
  async function notifications(project: Project, alertId: number) {
    const rows = await handle.db
      .select({ topic: outboxMessages.topic, payload: outboxMessages.payload })
      .from(outboxMessages)
      .where(inArray(outboxMessages.topic, [alertEmailTopic, chatNotificationTopic]))
      .orderBy(outboxMessages.id);
    return {
      emails: rows.filter((row) => row.topic === alertEmailTopic && row.payload.alertId === alertId).map((row) => row.payload.kind),
      chat: rows.filter((row) => row.topic === chatNotificationTopic && row.payload.integrationId === project.slackId).map((row) => row.payload.event),
    };
  }

  /**
   * One housekeeping pass at `at`, and what it did to this project's alerts (by title): the suite's database holds the
   * other tests' alerts too, which the pass also looks at.
   */
  async function release(project: Project, at: Date) {
    const result = await releaseHeldAlerts(handle.db, at);
    const titles = async (ids: number[]) =>
      ids.length === 0
        ? []
        : (await handle.db.select({ title: alerts.title }).from(alerts).where(and(eq(alerts.projectId, project.projectId), inArray(alerts.id, ids)))).map((row) => row.title).sort();
    return { released: await titles(result.released), held: await titles(result.held) };
  }

  const fire = (project: Project, payload: Record<string, unknown>, at = now) => applyPayload(handle.db, project.integration, { fingerprint: payload.title, ...payload }, at);

  it("records a silenced alert and counts its repeats, with no incident, no email and no chat, until the window ends; then it notifies once", async () => {
    const project = await notifyingProject();
    const { silence } = await createSilence(project.ctx, project.reference, {
      matchers: ['service="db"', 'severity=~"high|critical"'],
      startsAt: minutes(-60),
      endsAt: minutes(60),
      reason: "Database upgrade",
    });
    await fire(project, { title: "Disk", service: "db", severity: "critical" });
    await fire(project, { title: "Disk", service: "db", severity: "critical" }, minutes(5));
    await fire(project, { title: "CPU", service: "web", severity: "critical" });

    const silenced = await alertNamed(project, "Disk");
    expect([silenced.eventCount, silenced.silencedById, silenced.notifyAfter, silenced.issueId]).toEqual([2, silence.id, minutes(60), null]);
    expect(await notifications(project, silenced.id)).toEqual({ emails: [], chat: ["alert", "issue"] });
    // Only the other alert went to chat, and it has its incident.
    const other = await alertNamed(project, "CPU");
    expect([other.silencedById, other.notifyAfter, other.issueId === null]).toEqual([null, null, false]);
    expect((await notifications(project, other.id)).emails).toEqual(["triggered"]);

    // Nothing is due before the end; at the end the alert notifies once, and looking again sends nothing more.
    expect(await release(project, minutes(59))).toEqual({ released: [], held: [] });
    expect(await release(project, minutes(61))).toEqual({ released: ["Disk"], held: [] });
    expect(await release(project, minutes(62))).toEqual({ released: [], held: [] });
    const released = await alertNamed(project, "Disk");
    expect([released.silencedById, released.notifyAfter, released.issueId === null, released.status]).toEqual([null, null, false, "triggered"]);
    expect(await notifications(project, released.id)).toEqual({ emails: ["triggered"], chat: ["alert", "issue", "alert", "issue"] });
    const notes = await handle.db.select({ body: alertNotes.body }).from(alertNotes).where(eq(alertNotes.alertId, released.id)).orderBy(alertNotes.id);
    expect(notes.map((note) => note.body)).toEqual([
      "logged an alert from **Monitor**",
      "notified of this alert: it is no longer silenced or snoozed and still triggered",
      // The other alert's incident is #1.
      "created incident #2 for this alert",
    ]);
  });

  it("matches through the receiver, on payload paths, hosts and the integration's name, in a weekly window", async () => {
    const project = await notifyingProject();
    await handle.db.update(alertIntegrations).set({ tokenDigest: sha256Hex("silence-key") }).where(eq(alertIntegrations.id, project.integration.id));
    // 2026-05-01 is a Friday: 10:00Z is 12:00 in Berlin, inside Friday's 11:00–13:00 window.
    const { silence } = await createSilence(project.ctx, project.reference, {
      matchers: '{integration="Monitor", host=~"db-[0-9]+", payload.labels.team="storage", title!~"(?i)page.*"}',
      recurrence: { days: ["fri"], start_time: "11:00", end_time: "13:00", time_zone: "Europe/Berlin" },
      reason: "Weekly storage maintenance",
    });
    const send = (body: Record<string, unknown>, at = now) =>
      receiveAlert(
        handle.db,
        { projectPath: project.projectPath, endpoint: { kind: "identifier", identifier: project.integration.endpointIdentifier } },
        receiverRequestOf(new Request("http://localhost/", { method: "POST", headers: { Authorization: "Bearer silence-key" }, body: JSON.stringify(body) })),
        at,
      );
    const storage = { hosts: ["web-1", "db-12"], labels: { team: "storage" } };
    expect((await send({ title: "Replication lag", ...storage })).status).toBe(200);
    await send({ title: "PAGE now", ...storage });
    await send({ title: "Other team", hosts: ["db-1"], labels: { team: "network" } });
    // Friday 13:00 in Berlin has passed: the window is closed.
    await send({ title: "After the window", ...storage }, new Date("2026-05-01T11:00:00Z"));
    const silencedTitles = (await listAlerts(project.ctx, project.reference, { silenced: true }, page)).items.map((item) => item.alert.title);
    expect(silencedTitles).toEqual(["Replication lag"]);
    const others = (await listAlerts(project.ctx, project.reference, { silenced: false, sort: "started_at_asc" }, page)).items.map((item) => item.alert.title);
    expect(others.sort()).toEqual(["After the window", "Other team", "PAGE now"]);
    const lag = await alertNamed(project, "Replication lag");
    expect(lag.notifyAfter).toEqual(new Date("2026-05-01T11:00:00Z"));
    expect(serializeAlert((await getAlert(project.ctx, project.reference, lag.iid)).view, await getAlert(project.ctx, project.reference, lag.iid))).toMatchObject({
      silenced_by: silence.id,
      snoozed_until: null,
      snoozed_until_resolved: false,
    });
  });

  it("matches a pattern that would backtrack for ages in JavaScript in the database's engine, in time bounded by the text", async () => {
    const project = await notifyingProject();
    // In a backtracking engine `(a|aa)*c` against 40 a's tries every way to split them: about 165 million. PostgreSQL's
    // engine runs it as an automaton.
    const { silence } = await createSilence(project.ctx, project.reference, { matchers: ['title!~"(a|aa)*c"', 'payload.note=~"(x+x+)+y|x*"'], endsAt: minutes(60), reason: "Hostile" });
    const started = performance.now();
    await fire(project, { title: "a".repeat(40), note: "x".repeat(5000) });
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await alertNamed(project, "a".repeat(40))).silencedById).toBe(silence.id);
  });

  it("notifies the alerts of a deleted silence at the next pass, and lets a resolved one go quietly", async () => {
    const project = await notifyingProject();
    const { silence } = await createSilence(project.ctx, project.reference, { matchers: ['environment="staging"'], endsAt: minutes(600), reason: "Staging rebuild" });
    await fire(project, { title: "Staging down", gitlab_environment_name: "staging" });
    await fire(project, { title: "Staging slow", gitlab_environment_name: "staging" });
    await fire(project, { title: "Staging slow", gitlab_environment_name: "staging", end_time: minutes(1).toISOString() }, minutes(1));
    await deleteSilence(project.ctx, project.reference, silence.id);
    expect(await release(project, minutes(2))).toEqual({ released: ["Staging down"], held: [] });
    const down = await alertNamed(project, "Staging down");
    expect((await notifications(project, down.id)).emails).toEqual(["triggered"]);
    const slow = await alertNamed(project, "Staging slow");
    expect([slow.status, slow.notifyAfter, slow.issueId]).toEqual(["resolved", null, null]);
    expect((await notifications(project, slow.id)).emails).toEqual(["resolved"]);
    await expect(getSilence(project.ctx, project.reference, silence.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("keeps holding an alert that another open silence matches when the first one ends", async () => {
    const project = await notifyingProject();
    const first = await createSilence(project.ctx, project.reference, { matchers: ['service="db"'], endsAt: minutes(30), reason: "First" });
    const second = await createSilence(project.ctx, project.reference, { matchers: ['title=~"Disk.*"'], startsAt: minutes(10), endsAt: minutes(90), reason: "Second" });
    await fire(project, { title: "Disk", service: "db" });
    expect((await alertNamed(project, "Disk")).silencedById).toBe(first.silence.id);
    expect(await release(project, minutes(31))).toEqual({ released: [], held: ["Disk"] });
    const held = await alertNamed(project, "Disk");
    expect([held.silencedById, held.notifyAfter]).toEqual([second.silence.id, minutes(90)]);
    // Changing a silence makes its alerts due at once: narrowed, it no longer matches, so the alert notifies.
    await updateSilence({ ...project.ctx, now: minutes(40) }, project.reference, second.silence.id, { matchers: ['title="Memory"'], startsAt: minutes(10), endsAt: minutes(90), reason: "Second" });
    expect(await release(project, minutes(41))).toEqual({ released: ["Disk"], held: [] });
    expect((await notifications(project, held.id)).emails).toEqual(["triggered"]);
  });

  it("snoozes an alert: recurrences send nothing, the snooze's end notifies once; until resolved holds until unsnoozed", async () => {
    const project = await notifyingProject();
    await fire(project, { title: "Load" });
    const load = await alertNamed(project, "Load");
    expect((await notifications(project, load.id)).emails).toEqual(["triggered"]);
    const snoozed = await updateAlert(project.ctx, project.reference, load.iid, { snooze: { minutes: 30 } });
    expect(serializeAlert(snoozed.view, snoozed)).toMatchObject({ snoozed_until: minutes(30).toISOString(), snoozed_until_resolved: false, silenced_by: null });
    await fire(project, { title: "Load" }, minutes(5));
    await fire(project, { title: "Load" }, minutes(10));
    expect((await notifications(project, load.id)).emails).toEqual(["triggered"]);
    expect(await release(project, minutes(29))).toEqual({ released: [], held: [] });
    expect(await release(project, minutes(30))).toEqual({ released: ["Load"], held: [] });
    // The alert had been mailed: its release is told as a recurrence, in the digest.
    expect((await notifications(project, load.id)).emails).toEqual(["triggered", "recurred"]);
    expect((await alertNamed(project, "Load")).snoozedUntil).toBeNull();

    const ctx = { ...project.ctx, now: minutes(40) };
    await updateAlert(ctx, project.reference, load.iid, { snooze: { untilResolved: true } });
    await fire(project, { title: "Load" }, minutes(45));
    expect(await release(project, minutes(24 * 60))).toEqual({ released: [], held: [] });
    const ended = await updateAlert({ ...project.ctx, now: minutes(50) }, project.reference, load.iid, { snooze: { off: true } });
    expect(serializeAlert(ended.view, ended)).toMatchObject({ snoozed_until: null, snoozed_until_resolved: false });
    expect(await release(project, minutes(51))).toEqual({ released: ["Load"], held: [] });
    const notes = await handle.db.select({ body: alertNotes.body }).from(alertNotes).where(eq(alertNotes.alertId, load.id)).orderBy(alertNotes.id);
    expect(notes.map((note) => note.body)).toEqual([
      "logged an alert from **Monitor**",
      "created incident #1 for this alert",
      `snoozed notifications until ${minutes(30).toISOString()}`,
      "notified of this alert: it is no longer silenced or snoozed and still triggered",
      "snoozed notifications until the alert resolves",
      "ended the snooze",
      "notified of this alert: it is no longer silenced or snoozed and still triggered",
    ]);
  });

  it("refuses to snooze a resolved alert, and lets Developers snooze but not Reporters", async () => {
    const project = await notifyingProject();
    const developer = await createTestUser(handle.db);
    const reporter = await createTestUser(handle.db);
    await addMember(project.ctx, project.reference, { userId: developer.id, accessLevel: 30 });
    await addMember(project.ctx, project.reference, { userId: reporter.id, accessLevel: 20 });
    await fire(project, { title: "Queue" });
    const iid = (await iidOf(project, "Queue"))!;
    expect(await apiFailure(updateAlert({ ...userContext(handle.db, reporter), now }, project.reference, iid, { snooze: { minutes: 30 } }))).toBeInstanceOf(ForbiddenError);
    await updateAlert({ ...userContext(handle.db, developer), now }, project.reference, iid, { snooze: { minutes: 60 } });
    await updateAlert(project.ctx, project.reference, iid, { status: "resolved" });
    const refused = await apiFailure(updateAlert(project.ctx, project.reference, iid, { snooze: { minutes: 30 } }));
    expect([refused.constructor, refused.message]).toEqual([BadRequestError, "A resolved alert cannot be snoozed."]);
  });

  it("lets Maintainers write silences and Reporters read them, and names what is wrong with one", async () => {
    const project = await notifyingProject();
    const [maintainer, developer, reporter, guest] = await Promise.all([1, 2, 3, 4].map(() => createTestUser(handle.db)));
    for (const [user, accessLevel] of [[maintainer!, 40], [developer!, 30], [reporter!, 20], [guest!, 10]] as const) {
      await addMember(project.ctx, project.reference, { userId: user.id, accessLevel });
    }
    const as = (user: typeof maintainer) => ({ ...userContext(handle.db, user!), now });
    const input = { matchers: ['severity="low"'], endsAt: minutes(60), reason: "Noise" };
    const created = await createSilence(as(maintainer), project.reference, input);
    expect(serializeSilence(created, now)).toEqual({
      id: created.silence.id,
      project_id: project.projectId,
      matchers: ['severity="low"'],
      starts_at: now.toISOString(),
      ends_at: minutes(60).toISOString(),
      recurrence: null,
      reason: "Noise",
      author: { id: maintainer!.id, username: maintainer!.username },
      state: "active",
      current_window: { starts_at: now.toISOString(), ends_at: minutes(60).toISOString() },
      next_window: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    expect(await apiFailure(createSilence(as(developer), project.reference, input))).toBeInstanceOf(ForbiddenError);
    expect(await apiFailure(deleteSilence(as(developer), project.reference, created.silence.id))).toBeInstanceOf(ForbiddenError);
    expect((await listSilences(as(reporter), project.reference, page)).items.map((item) => item.silence.id)).toEqual([created.silence.id]);
    expect((await getSilence(as(reporter), project.reference, created.silence.id)).silence.reason).toBe("Noise");
    expect(await apiFailure(listSilences(as(guest), project.reference, page))).toBeInstanceOf(ForbiddenError);

    const problem = async (changes: Partial<typeof input> & Record<string, unknown>) => {
      const error = await apiFailure(createSilence(as(maintainer), project.reference, { ...input, ...changes }));
      expect(error).toBeInstanceOf(BadRequestError);
      return error.message;
    };
    expect(await problem({ matchers: ['severity="low"', 'team="a"'] })).toBe(
      'matcher "team=\\"a\\"" names no alert field: use integration, service, environment, severity, title, monitoring_tool, host or payload.<path>',
    );
    expect(await problem({ matchers: ['title=~"a{2,1}"'] })).toBe('matcher "title=~\\"a{2,1}\\"" has a pattern that is not a valid regular expression');
    expect(await problem({ matchers: ['title=~"(x+)+\\1"'] })).toBe('matcher "title=~\\"(x+)+\\\\1\\"" has a pattern that cannot be used: back-references are not supported');
    expect(await problem({ endsAt: minutes(-1), startsAt: minutes(-10) })).toBe("ends_at must be in the future");
    expect(await problem({ endsAt: undefined })).toBe("ends_at or recurrence is required");
    expect(await problem({ endsAt: undefined, recurrence: { days: ["mon"], start_time: "22:00", end_time: "06:00", time_zone: "Europe/Nowhere" } })).toBe(
      'recurrence: "Europe/Nowhere" is not a known time zone',
    );
    expect(await problem({ recurrence: { days: ["mon"], start_time: "22:00", end_time: "06:00", time_zone: "UTC" } })).toBe("a recurring silence takes no starts_at or ends_at");
    expect(await problem({ reason: " " })).toBe("reason is required");
  });

  it("prunes one-off silences 120 hours after they end, in any project; the alerts that named one forget it", async () => {
    const project = await notifyingProject();
    const hours = (count: number) => new Date(now.getTime() + count * 3_600_000);
    const { silence: expired } = await createSilence(project.ctx, project.reference, { matchers: ['service="db"'], endsAt: hours(1), reason: "Upgrade" });
    const { silence: later } = await createSilence(project.ctx, project.reference, { matchers: ['service="web"'], endsAt: hours(3), reason: "Later" });
    const { silence: weekly } = await createSilence(project.ctx, project.reference, {
      matchers: ['service="batch"'],
      recurrence: { days: ["sun"], start_time: "01:00", end_time: "03:00", time_zone: "UTC" },
      reason: "Weekly",
    });
    await fire(project, { title: "Resolved while silenced", service: "db" });
    await fire(project, { title: "Resolved while silenced", service: "db", end_time: minutes(5).toISOString() }, minutes(5));
    // Held, and never looked at again before the prune (housekeeping was down).
    await fire(project, { title: "Still held", service: "db" });
    const remaining = async () =>
      (await handle.db.select({ id: alertSilences.id }).from(alertSilences).where(eq(alertSilences.projectId, project.projectId)).orderBy(alertSilences.id)).map((row) => row.id);

    await pruneExpiredSilences(handle.db, hours(1 + 120));
    expect(await remaining()).toEqual([expired.id, later.id, weekly.id]);
    await pruneExpiredSilences(handle.db, hours(1 + 120 + 0.01));
    expect(await remaining()).toEqual([later.id, weekly.id]);

    const resolved = await getAlert(project.ctx, project.reference, (await iidOf(project, "Resolved while silenced"))!);
    expect([resolved.alert.status, resolved.silence, serializeAlert(resolved.view, resolved).silenced_by]).toEqual(["resolved", null, null]);
    const held = await alertNamed(project, "Still held");
    expect([held.silencedById, held.notifyAfter]).toEqual([null, hours(1)]);
    expect(await release(project, hours(122))).toEqual({ released: ["Still held"], held: [] });
    expect((await notifications(project, held.id)).emails).toEqual(["triggered"]);
  });
});
