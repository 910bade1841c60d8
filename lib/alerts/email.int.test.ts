import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

// The configuration is read once, when lib/env is first imported: the SMTP server must be listening before that.
const smtp = await vi.hoisted(async () => {
  const { startTestSmtpServer } = await import("@/lib/testing/smtp");
  const server = await startTestSmtpServer({ user: "alerts", password: "alert mail" });
  process.env.SMTP_URL = server.url("alerts", "alert mail");
  process.env.MAIL_FROM = "Code host <noreply@code.example>";
  process.env.EXTERNAL_URL = "https://code.example";
  return server;
});

import { eq } from "drizzle-orm";
import { createContext } from "@/lib/context";
import { alertEmailDigests, alerts, groupMembers, outboxMessages, projectMembers, users, type UserRow } from "@/lib/db/schema";
import { createGroup } from "@/lib/groups/groups";
import { addGroupMember } from "@/lib/groups/members";
import { OutboxWorker } from "@/lib/outbox/worker";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import type { ReceivedMail } from "@/lib/testing/smtp";
import { blockUser } from "@/lib/users/admin";
import { updateOwnNotificationSettings } from "@/lib/users/notification-settings";
import { updateAlertStatus } from "./alerts";
import { alertEmailFanOut, alertEmailRecipientTopic, alertEmailSender, alertEmailTopic, maxAlertEmailAttempts } from "./email";
import { createIntegration } from "./integrations";
import { applyPayload } from "./receive";
import { updateAlertSettings } from "./settings";

afterAll(() => smtp.close());

describe.each(testDatabases())("alert emails on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  /** The tests' clock, ahead of the real one by `offset`: a minute passes when the test says so. */
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  let worker: OutboxWorker;

  beforeAll(() => {
    worker = new OutboxWorker(handle, {
      handlers: { [alertEmailTopic]: alertEmailFanOut(clock), [alertEmailRecipientTopic]: alertEmailSender({ now: clock }) },
      leaseMs: 60_000,
      concurrency: 4,
      pollMs: 60_000,
      now: clock,
    });
  });
  afterEach(async () => {
    await worker.stop();
    smtp.refusedRecipients.clear();
  });

  /** Sends what is due by the tests' clock, and answers the mails the server took meanwhile. */
  async function deliverDue(): Promise<ReceivedMail[]> {
    const before = smtp.received.length;
    await worker.start();
    await worker.idle();
    await worker.stop();
    return smtp.received.slice(before);
  }

  /** A minute (and a second) later, by the tests' clock. */
  function aMinutePasses() {
    offset += 61_000;
  }

  interface Team {
    owner: UserRow;
    maintainer: UserRow;
    developer: UserRow;
    projectId: number;
    projectName: string;
    fullPath: string;
    integration: Awaited<ReturnType<typeof createIntegration>>["integration"];
  }

  async function team({ sendEmail = true } = {}): Promise<Team> {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const projectName = `Payments ${uniqueSuffix()}`;
    const { project, namespace } = await createProject(ctx, { name: projectName });
    const reference = String(project.id);
    const maintainer = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    await addMember(ctx, reference, { userId: maintainer.id, accessLevel: 40 });
    await addMember(ctx, reference, { userId: developer.id, accessLevel: 30 });
    const { integration } = await createIntegration(ctx, reference, { name: "Monitor", type: "http", active: true });
    if (sendEmail) await updateAlertSettings(ctx, reference, { sendEmail: true });
    return { owner, maintainer, developer, projectId: project.id, projectName, fullPath: `${namespace.fullPath}/${project.path}`, integration };
  }

  /** An email's text about a project's first alert: its opening lines with the details link, then its paragraphs. */
  const mailText = (fullPath: string, opening: string[], ...paragraphs: string[]) =>
    `${[[...opening, `View alert details at https://code.example/${fullPath}/-/alert_management/1/details`].join("\n"), ...paragraphs].join("\n\n")}\n`;
  const recipientsOf = (mails: ReceivedMail[]) => mails.flatMap((mail) => mail.to).sort();
  const addresses = (...people: UserRow[]) => people.map((person) => person.email).sort();
  const alertRow = async (projectId: number, iid = 1) =>
    (await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId))).find((alert) => alert.iid === iid)!;

  it("mails a new alert to each active Owner and Maintainer, with GitLab's subject, headers and text", async () => {
    const { owner, maintainer, developer, projectId, projectName, fullPath, integration } = await team();
    const admin = createContext(handle.db, { kind: "system", job: "test" });
    const ownerCtx = userContext(handle.db, owner);
    // Maintainers who get nothing: blocked, membership expired yesterday, opted out, address never confirmed.
    const blocked = await createTestUser(handle.db);
    const expired = await createTestUser(handle.db);
    const optedOut = await createTestUser(handle.db);
    const unconfirmed = await createTestUser(handle.db, { confirmed: false });
    for (const person of [blocked, expired, optedOut, unconfirmed]) await addMember(ownerCtx, String(projectId), { userId: person.id, accessLevel: 40 });
    await blockUser(admin, blocked.id);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await handle.db.update(projectMembers).set({ expiresAt: yesterday }).where(eq(projectMembers.userId, expired.id));
    await updateOwnNotificationSettings(userContext(handle.db, optedOut), { alertEmails: false });

    await applyPayload(
      handle.db,
      integration,
      { title: "Disk full", description: "Disk 91% full", gitlab_environment_name: "production", fingerprint: "disk" },
      clock(),
    );
    const mails = await deliverDue();
    expect(recipientsOf(mails)).toEqual(addresses(owner, maintainer));
    expect(recipientsOf(mails)).not.toContain(developer.email);
    const alert = await alertRow(projectId);
    const mail = mails.find((each) => each.to[0] === maintainer.email)!;
    expect(mail).toMatchObject({ user: "alerts", from: "noreply@code.example" });
    const projectPathAsDomain = fullPath.toLowerCase().split("/").reverse().join(".").replace(/[^a-z0-9.]/g, "-");
    expect(mail.headers).toMatchObject({
      subject: `${projectName} | Alert: production: Disk full`,
      "x-gitlab-project": projectName,
      "x-gitlab-project-id": String(projectId),
      "x-gitlab-project-path": fullPath,
      "list-id": `${fullPath} <${projectId}.${projectPathAsDomain}.code.example>`,
      "x-gitlab-alert-id": String(alert.id),
      "x-gitlab-alert-iid": "1",
      "x-gitlab-notificationreason": "alert_triggered",
      "auto-submitted": "auto-generated",
      "x-auto-response-suppress": "All",
    });
    expect(mail.headers["x-gitlab-incident-id"]).toBeUndefined();
    expect(mail.text).toBe(mailText(fullPath, [`An alert has been triggered in ${fullPath}.`], "Description: Disk 91% full", "Environment: production"));
    // Nothing is left to send.
    expect(await deliverDue()).toEqual([]);
  });

  it("mails a recurrence while triggered, none while acknowledged or ignored, and the resolution in any case", async () => {
    const { owner, maintainer, projectId, projectName, fullPath, integration } = await team();
    const fire = () => applyPayload(handle.db, integration, { title: "Latency", fingerprint: "latency" }, clock());
    await fire();
    expect(recipientsOf(await deliverDue())).toEqual(addresses(owner, maintainer));

    // A recurrence a minute later is mailed, saying it fired once more.
    aMinutePasses();
    await fire();
    const recurrence = await deliverDue();
    expect(recipientsOf(recurrence)).toEqual(addresses(owner, maintainer));
    expect(recurrence[0]!.headers.subject).toBe(`${projectName} | Alert: Latency`);
    expect(recurrence[0]!.text).toBe(mailText(fullPath, [`An alert has been triggered in ${fullPath}.`, "Since the last email, it fired once more."]));

    const ownerCtx = userContext(handle.db, owner);
    for (const status of ["acknowledged", "ignored"] as const) {
      await updateAlertStatus(ownerCtx, String(projectId), 1, status);
      aMinutePasses();
      await fire();
      aMinutePasses();
      expect(await deliverDue(), status).toEqual([]);
    }
    expect((await alertRow(projectId)).eventCount).toBe(4);

    await applyPayload(handle.db, integration, { fingerprint: "latency", end_time: clock().toISOString() }, clock());
    const resolution = await deliverDue();
    expect(recipientsOf(resolution)).toEqual(addresses(owner, maintainer));
    expect(resolution[0]!.headers).toMatchObject({ subject: `${projectName} | Alert: Latency`, "x-gitlab-notificationreason": "alert_resolved" });
    expect(resolution[0]!.text).toBe(mailText(fullPath, [`An alert has been resolved in ${fullPath}.`]));
  });

  it("coalesces 50 recurrences within a minute into one email that says 50; a resolution follows it", async () => {
    const { owner, maintainer, projectId, fullPath, integration } = await team();
    const fire = () => applyPayload(handle.db, integration, { title: "Errors", fingerprint: "errors" }, clock());
    await fire();
    expect(await deliverDue()).toHaveLength(2);
    await Promise.all(Array.from({ length: 50 }, fire));
    // Within the minute after the first email, nothing more goes out, and one digest waits.
    expect(await deliverDue()).toEqual([]);
    const waiting = await handle.db.select().from(outboxMessages).where(eq(outboxMessages.topic, alertEmailTopic));
    expect(waiting.map((message) => message.payload)).toEqual([{ alertId: (await alertRow(projectId)).id, kind: "recurred" }]);

    // A resolution now waits for the digest, which goes when the minute is over.
    await applyPayload(handle.db, integration, { fingerprint: "errors", end_time: clock().toISOString() }, clock());
    expect(await deliverDue()).toEqual([]);
    aMinutePasses();
    const mails = await deliverDue();
    expect(recipientsOf(mails)).toEqual([...addresses(owner, maintainer), ...addresses(owner, maintainer)].sort());
    for (const person of [owner, maintainer]) {
      const theirs = mails.filter((mail) => mail.to[0] === person.email);
      expect(theirs.map((mail) => mail.headers["x-gitlab-notificationreason"])).toEqual(["alert_triggered", "alert_resolved"]);
      expect(theirs[0]!.text).toBe(mailText(fullPath, [`An alert has been triggered in ${fullPath}.`, "Since the last email, it fired 50 more times."]));
    }
    const [digest] = await handle.db.select().from(alertEmailDigests).where(eq(alertEmailDigests.alertId, (await alertRow(projectId)).id));
    expect(digest?.unmailedEvents).toBe(0);
  });

  it("retries a refused email later without mailing again those who got it", async () => {
    const { owner, maintainer, projectId, integration } = await team();
    smtp.refusedRecipients.add(maintainer.email.toLowerCase());
    await applyPayload(handle.db, integration, { title: "Queue stuck", fingerprint: "queue" }, clock());
    expect(recipientsOf(await deliverDue())).toEqual([owner.email]);
    const alert = await alertRow(projectId);
    const [waiting] = await handle.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.orderingKey, `${alertEmailTopic}:${alert.id}:${maintainer.id}`));
    expect(waiting).toMatchObject({ topic: alertEmailRecipientTopic, attempts: 1, lastError: expect.stringContaining("Mailbox unavailable") });

    // Still refused at the next attempt (30 s later); then the mailbox is back.
    offset += 31_000;
    expect(await deliverDue()).toEqual([]);
    smtp.refusedRecipients.clear();
    offset += 121_000;
    const retried = await deliverDue();
    expect(recipientsOf(retried)).toEqual([maintainer.email]);
    expect(retried[0]!.headers["x-gitlab-notificationreason"]).toBe("alert_triggered");
  });

  it("gives up on a recipient after the last attempt", async () => {
    const { owner, maintainer, integration } = await team();
    smtp.refusedRecipients.add(maintainer.email.toLowerCase());
    await applyPayload(handle.db, integration, { title: "Gone", fingerprint: "gone" }, clock());
    expect(recipientsOf(await deliverDue())).toEqual([owner.email]);
    for (let attempt = 2; attempt <= maxAlertEmailAttempts; attempt++) {
      offset += 40 * 60_000;
      expect(await deliverDue()).toEqual([]);
    }
    const left = await handle.db.select().from(outboxMessages).where(eq(outboxMessages.topic, alertEmailRecipientTopic));
    expect(left.filter((message) => (message.payload as { userId: number }).userId === maintainer.id)).toEqual([]);
  });

  it("mails a group project's group's own Owners and Maintainers while the project has none of its own, as GitLab", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const root = await createGroup(ctx, { name: "Ops", path: `ops-${uniqueSuffix()}` });
    const team = await createGroup(ctx, { name: "Team", path: "team", parentId: root.group.id });
    const [maintainer, developer, expired, rootOwner, own] = [
      await createTestUser(handle.db),
      await createTestUser(handle.db),
      await createTestUser(handle.db),
      await createTestUser(handle.db),
      await createTestUser(handle.db),
    ];
    await addGroupMember(ctx, String(team.group.id), { userId: maintainer.id, accessLevel: 40 });
    await addGroupMember(ctx, String(team.group.id), { userId: developer.id, accessLevel: 30 });
    await addGroupMember(ctx, String(team.group.id), { userId: expired.id, accessLevel: 40 });
    await handle.db.update(groupMembers).set({ expiresAt: "2000-01-01" }).where(eq(groupMembers.userId, expired.id));
    // An Owner of the group above is an Owner of the project too, but GitLab mails the project's own group only.
    await addGroupMember(ctx, String(root.group.id), { userId: rootOwner.id, accessLevel: 50 });
    const { project } = await createProject(ctx, { path: "pager", namespaceId: team.group.id });
    expect(await handle.db.select().from(projectMembers).where(eq(projectMembers.projectId, project.id))).toEqual([]);
    const { integration } = await createIntegration(ctx, String(project.id), { name: "Monitor", type: "http", active: true });
    await updateAlertSettings(ctx, String(project.id), { sendEmail: true });
    await applyPayload(handle.db, integration, { title: "Inherited", fingerprint: "inherited" }, clock());
    expect(recipientsOf(await deliverDue())).toEqual(addresses(owner, maintainer));

    // Once the project has a Maintainer of its own, only its own people are mailed.
    await addMember(ctx, String(project.id), { userId: own.id, accessLevel: 40 });
    await applyPayload(handle.db, integration, { title: "Own", fingerprint: "own" }, clock());
    expect(recipientsOf(await deliverDue())).toEqual(addresses(own));
  });

  it("mails nothing when the project does not send alert emails", async () => {
    const { projectId, integration } = await team({ sendEmail: false });
    await applyPayload(handle.db, integration, { title: "Quiet", fingerprint: "quiet" }, clock());
    await applyPayload(handle.db, integration, { title: "Quiet", fingerprint: "quiet" }, clock());
    await applyPayload(handle.db, integration, { fingerprint: "quiet", end_time: clock().toISOString() }, clock());
    aMinutePasses();
    expect(await deliverDue()).toEqual([]);
    const alert = await alertRow(projectId);
    expect(await handle.db.select().from(alertEmailDigests).where(eq(alertEmailDigests.alertId, alert.id))).toEqual([]);
  });

  it("names the alert's incident in the headers and the text", async () => {
    const { owner, maintainer, projectId, fullPath, integration } = await team();
    await updateAlertSettings(userContext(handle.db, owner), String(projectId), { createIncident: true });
    await applyPayload(handle.db, integration, { title: "Outage", fingerprint: "outage" }, clock());
    const mails = await deliverDue();
    expect(recipientsOf(mails)).toEqual(addresses(owner, maintainer));
    const alert = await alertRow(projectId);
    expect(mails[0]!.headers).toMatchObject({ "x-gitlab-incident-id": String(alert.issueId), "x-gitlab-incident-iid": "1" });
    expect(mails[0]!.text).toContain(`\n\nView incident. https://code.example/${fullPath}/-/issues/1\n`);
  });

  it("stores each person's choice on their account, on by default", async () => {
    const person = await createTestUser(handle.db);
    const [before] = await handle.db.select({ alertEmails: users.alertEmails }).from(users).where(eq(users.id, person.id));
    expect(before).toEqual({ alertEmails: true });
    expect(await updateOwnNotificationSettings(userContext(handle.db, person), { alertEmails: false })).toEqual({ alertEmails: false });
    const [after] = await handle.db.select({ alertEmails: users.alertEmails }).from(users).where(eq(users.id, person.id));
    expect(after).toEqual({ alertEmails: false });
  });
});
