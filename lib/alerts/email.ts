import "server-only";
import { and, eq, isNotNull, sql, type SQL } from "drizzle-orm";
import { literal, placeholder, preparedStatement, type Executor } from "@/lib/db";
import { statementRows } from "@/lib/db/statement-rows";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { alertEmailDigests, alerts, groupMembers, issues, namespaces, projectAlertSettings, projectMembers, projects, users } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { issueWebUrl } from "@/lib/issues/serialize";
import { logger } from "@/lib/log";
import { configuredMailer, type Mailer, type MailMessage } from "@/lib/mail/mailer";
import { completeMessage, enqueueMessages, growingRetryDelayMs, rescheduleMessage, type LeasedMessage } from "@/lib/outbox/outbox";
import type { OutboxHandler } from "@/lib/outbox/worker";
import { groupMembershipActive, membershipActive, projectRoleOf, utcDay } from "@/lib/projects/access";
import { abilityMinimumLevels } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { alertEmail, alertEmailKinds, type AlertEmailKind } from "./email-message";
import type { AlertSettings } from "./settings";
import { alertDetailsUrl } from "./urls";

/**
 * Alert emails (GitLab's "Send a single email notification to Owners and Maintainers for new alerts"), over the
 * outbox in two steps:
 *
 * 1. The change that fires or resolves an alert enqueues one message for the alert (`alertEmailTopic`), in its
 *    transaction. Recurrences are not mailed one by one: `alert_email_digests` counts them, and only the first since
 *    the last email enqueues a digest, due a minute after that email; the others are told in it.
 * 2. That message's handler reads the recipients at send time, a page at a time, and enqueues one message per recipient
 *    (`alertEmailRecipientTopic`), which is sent, and retried on its own, so a retry never mails anyone twice.
 *
 * Each alert's messages share an ordering key, and so do each recipient's of one alert, so a resolution is mailed
 * after the digest before it.
 */
export const alertEmailTopic = "alert_email";
export const alertEmailRecipientTopic = "alert_email_recipient";

/** The shortest time between two emails about one alert, resolutions aside. */
export const alertDigestIntervalMs = 60_000;
/** How many recipients a fan-out reads and enqueues at a time. */
const recipientPageSize = 100;
/** How many times one recipient's email is tried: the first time, then after 30 s, 2, 8 and 32 minutes. */
export const maxAlertEmailAttempts = 5;


const alertOrderingKey = (alertId: number) => `${alertEmailTopic}:${alertId}`;
const recipientOrderingKey = (alertId: number, userId: number) => `${alertEmailTopic}:${alertId}:${userId}`;

/**
 * A firing alert's place in its emails, in one statement: its first firing while triggered (a new alert, or the first
 * since the project turned alert emails on) starts its row, and answers `started`; each later one counts one more
 * recurrence, and answers the count and when the digest may go out. An alert that is not triggered (acknowledged,
 * ignored) counts nothing, as GitLab mails only while it is triggered.
 */
const countFiring = preparedStatement<{ started: boolean; unmailed_events: number; next_mail_at: string | Date }>(
  () => sql`insert into ${alertEmailDigests} (alert_id, unmailed_events, next_mail_at)
    select id, 0, ${placeholder("nextMailAt", alertEmailDigests.nextMailAt)} from ${alerts}
     where id = ${placeholder("alertId")} and status = 'triggered'
    on conflict (alert_id) do update set unmailed_events = ${alertEmailDigests}.unmailed_events + 1
    returning xmax = 0 as started, unmailed_events, next_mail_at`,
);

/**
 * Schedules the emails about an alert's firing or resolution, in the transaction that records it, when the project
 * sends alert emails (`settings.sendEmail`). A firing while triggered is mailed at once the first time, then
 * coalesced into at most one digest a minute; a resolution is always mailed, after any digest still waiting.
 */
export async function enqueueAlertEmail(
  tx: Executor,
  settings: Pick<AlertSettings, "sendEmail">,
  alert: { id: number },
  change: "fired" | "resolved",
  now: Date,
): Promise<void> {
  if (!settings.sendEmail) return;
  const message = (kind: AlertEmailKind, availableAt?: Date) => ({
    topic: alertEmailTopic,
    orderingKey: alertOrderingKey(alert.id),
    payload: { alertId: alert.id, kind },
    availableAt,
  });
  if (change === "resolved") {
    await enqueueMessages(tx, [message("resolved")]);
    return;
  }
  const [counted] = await countFiring(tx, { alertId: alert.id, nextMailAt: new Date(now.getTime() + alertDigestIntervalMs) });
  if (!counted) return;
  if (counted.started) await enqueueMessages(tx, [message("triggered")]);
  else if (counted.unmailed_events === 1) {
    await enqueueMessages(tx, [message("recurred", new Date(Math.max(new Date(counted.next_mail_at).getTime(), now.getTime())))]);
  }
}

/**
 * Who gets an alert's emails, as GitLab's `owners_and_maintainers_without_invites`: the project's own Owners and
 * Maintainers whose membership has not expired; a project with none (one in a group, whose people are the group's)
 * mails its group's own instead. Each only with an active account and a confirmed address (GitLab's
 * `active_without_invites_and_requests`), and not if they turned alert emails off.
 */
function recipientConditions(): SQL {
  return and(eq(users.state, "active"), eq(users.userType, "human"), isNotNull(users.confirmedAt), eq(users.alertEmails, true))!;
}

const recipientLevel = literal(abilityMinimumLevels.receiveAlertEmails);

/** The project's own recipients after `afterUserId`, by user id: an index range of its memberships. */
function projectRecipients(projectId: number, today: string, afterUserId: number): SQL {
  return sql`select ${projectMembers.userId} as user_id from ${projectMembers} inner join ${users} on ${users.id} = ${projectMembers.userId}
    where ${projectMembers.projectId} = ${projectId} and ${projectMembers.userId} > ${afterUserId} and ${projectMembers.accessLevel} >= ${recipientLevel}
      and ${membershipActive(today)} and ${recipientConditions()}`;
}

/** The own recipients of the group the project is in (none for a personal project) after `afterUserId`, by user id. */
function projectGroupRecipients(projectId: number, today: string, afterUserId: number): SQL {
  return sql`select ${groupMembers.userId} as user_id from ${projects}
      inner join ${namespaces} on ${namespaces.id} = ${projects.namespaceId} and ${namespaces.kind} = 'group'
      inner join ${groupMembers} on ${groupMembers.groupId} = ${namespaces.id}
      inner join ${users} on ${users.id} = ${groupMembers.userId}
    where ${projects.id} = ${projectId} and ${groupMembers.userId} > ${afterUserId} and ${groupMembers.accessLevel} >= ${recipientLevel}
      and ${groupMembershipActive(today)} and ${recipientConditions()}`;
}

/** A page of the recipients (`recipientConditions`) after `afterUserId`, by user id, in one statement. */
async function recipientPage(tx: Executor, projectId: number, today: string, afterUserId: number): Promise<number[]> {
  const pageSize = literal(recipientPageSize);
  const rows = statementRows<{ user_id: number }>(
    await tx.execute(sql`
      (${projectRecipients(projectId, today, afterUserId)} order by user_id limit ${pageSize})
      union all
      (${projectGroupRecipients(projectId, today, afterUserId)} and not exists (${projectRecipients(projectId, today, 0)})
       order by user_id limit ${pageSize})`),
  );
  return rows.map((row) => Number(row.user_id)).sort((a, b) => a - b);
}

/** The recurrences a digest tells, taken: the count starts again, and the next digest waits a minute from now. */
const takeRecurrences = preparedStatement<{ unmailed_events: number }>(
  () => sql`update ${alertEmailDigests} d
       set unmailed_events = 0, next_mail_at = ${placeholder("nextMailAt", alertEmailDigests.nextMailAt)}
      from (select alert_id, unmailed_events from ${alertEmailDigests} where alert_id = ${placeholder("alertId")} for update) taken
     where d.alert_id = taken.alert_id
    returning taken.unmailed_events`,
);

function readAlertMessage(payload: Record<string, unknown>): { alertId: number; kind: AlertEmailKind } | null {
  const { alertId, kind } = payload;
  if (typeof alertId !== "number" || !alertEmailKinds.includes(kind as AlertEmailKind)) return null;
  return { alertId, kind: kind as AlertEmailKind };
}

/**
 * The handler of `alertEmailTopic`: one message per recipient, enqueued a page of recipients at a time, in one
 * transaction with taking the digest's count and completing the message, so a failure enqueues nothing and the next
 * attempt starts afresh. Nothing is mailed when the alert is gone or the project stopped sending alert emails.
 */
export function alertEmailFanOut(now: () => Date = () => new Date()): OutboxHandler {
  return async ({ db }: DatabaseHandle, message: LeasedMessage) => {
    const event = readAlertMessage(message.payload);
    await db.transaction(async (tx) => {
      const at = now();
      const [taken] =
        event?.kind === "recurred" ? await takeRecurrences(tx, { alertId: event.alertId, nextMailAt: new Date(at.getTime() + alertDigestIntervalMs) }) : [];
      const recurrences = taken?.unmailed_events ?? 0;
      const [target] = event
        ? await tx
            .select({ projectId: alerts.projectId, sendEmail: projectAlertSettings.sendEmail })
            .from(alerts)
            .innerJoin(projectAlertSettings, eq(projectAlertSettings.projectId, alerts.projectId))
            .where(eq(alerts.id, event.alertId))
        : [];
      if (event && target?.sendEmail && (event.kind !== "recurred" || recurrences > 0)) {
        const today = utcDay(at);
        for (let after = 0; ; ) {
          const page = await recipientPage(tx, target.projectId, today, after);
          await enqueueMessages(
            tx,
            page.map((userId) => ({
              topic: alertEmailRecipientTopic,
              orderingKey: recipientOrderingKey(event.alertId, userId),
              payload: { alertId: event.alertId, userId, kind: event.kind, recurrences },
            })),
          );
          if (page.length < recipientPageSize) break;
          after = page.at(-1)!;
        }
      }
      await completeMessage(tx, message);
    });
  };
}

function readRecipientMessage(payload: Record<string, unknown>) {
  const alert = readAlertMessage(payload);
  const { userId, recurrences } = payload;
  if (!alert || typeof userId !== "number" || typeof recurrences !== "number") return null;
  return { ...alert, userId, recurrences };
}

/**
 * One recipient's email, read when it is sent: null when the alert is gone or the person is no longer a recipient
 * (blocked, left the project, turned alert emails off).
 */
async function recipientEmail(
  db: Executor,
  delivery: NonNullable<ReturnType<typeof readRecipientMessage>>,
  now: Date,
): Promise<MailMessage | null> {
  const [row] = await db
    .select({
      to: users.email,
      alert: { id: alerts.id, iid: alerts.iid, title: alerts.title, description: alerts.description, environment: alerts.environment },
      project: projects,
      namespace: namespaces,
      incident: { id: issues.id, iid: issues.iid },
    })
    .from(alerts)
    .innerJoin(projects, eq(projects.id, alerts.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, eq(users.id, delivery.userId))
    .leftJoin(issues, eq(issues.id, alerts.issueId))
    .where(
      and(
        eq(alerts.id, delivery.alertId),
        recipientConditions(),
        sql`${projectRoleOf(sql`${users.id}`, sql`${projects.id}`, sql`${projects.namespaceId}`, utcDay(now))} >= ${recipientLevel}`,
      ),
    );
  if (!row) return null;
  const view = { project: row.project, namespace: row.namespace };
  const email = alertEmail({
    kind: delivery.kind,
    recurrences: delivery.recurrences,
    alert: row.alert,
    project: { id: row.project.id, name: row.project.name, fullPath: projectFullPath(view) },
    incident: row.incident ? { ...row.incident, url: issueWebUrl({ view, issue: row.incident }) } : null,
    detailsUrl: alertDetailsUrl(view, row.alert),
    host: new URL(env.EXTERNAL_URL).hostname,
  });
  return { to: row.to, ...email };
}

/**
 * The handler of `alertEmailRecipientTopic`: sends one person's email through the instance's mailer. A refusal or an
 * unreachable mail server is tried again later (`maxAlertEmailAttempts` in all); the others' emails do not wait for it.
 */
export function alertEmailSender({ mailer, now = () => new Date() }: { mailer?: Mailer; now?: () => Date } = {}): OutboxHandler {
  return async ({ db }: DatabaseHandle, message: LeasedMessage) => {
    const delivery = readRecipientMessage(message.payload);
    const email = delivery ? await recipientEmail(db, delivery, now()) : null;
    if (!email) {
      await completeMessage(db, message);
      return;
    }
    try {
      await (mailer ?? configuredMailer()).send(email);
    } catch (error) {
      const giveUp = message.attempts >= maxAlertEmailAttempts;
      logger.error(
        { err: error, outboxMessageId: message.id, attempts: message.attempts, mail: { to: email.to, subject: email.subject } },
        giveUp ? "alert email could not be sent; given up" : "alert email could not be sent; it is tried again later",
      );
      if (giveUp) await completeMessage(db, message);
      else {
        const reason = error instanceof Error ? error.message : String(error);
        await rescheduleMessage(db, message, { availableAt: new Date(now().getTime() + growingRetryDelayMs(message.attempts, 30_000)), error: reason.slice(0, 1000) });
      }
      return;
    }
    await completeMessage(db, message);
  };
}
