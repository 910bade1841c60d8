import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { placeholder, preparedStatement, type Database, type Executor } from "@/lib/db";
import { takeInternalIdSql } from "@/lib/db/internal-ids";
import { alertNotes, alerts, alertSilences, namespaces, projects, type AlertIntegrationRow, type AlertRow } from "@/lib/db/schema";
import { alertChatNotifications, projectTakesAlertChat } from "@/lib/integrations/alert-notifications";
import { getAlertBot } from "./bot";
import { enqueueAlertEmail } from "./email";
import { fingerprintOf } from "./fingerprint";
import { closeIncident, openIncident } from "./incidents";
import { readAlertSettings, type AlertSettings } from "./settings";
import { silenceHolding, type FiringFields, type SilenceHold } from "./silences";
import { addSystemNote } from "./system-notes";
import { alertDetailsUrl } from "./urls";
import type { PayloadFormat } from "./formats/types";
import type { NormalizedAlert } from "./normalize";

export interface IncomingAlert {
  projectId: number;
  integration: Pick<AlertIntegrationRow, "id" | "name">;
  normalized: NormalizedAlert;
  payload: unknown;
  /** The format the payload was read in, kept with the alert to read its links by. */
  format: PayloadFormat;
  now: Date;
  /** The project's alert settings when the caller already read them; read here otherwise. */
  settings?: AlertSettings;
  /** Whether a chat integration of the project takes alert events, when the caller already read it; read here otherwise. */
  notifiesChat?: boolean;
  /** False when the caller knows the project has no silences, which saves looking for one that matches. */
  hasSilences?: boolean;
}

/** Who the system notes say sent the alert: its monitoring tool, else the integration's name. */
function sourceOf(incoming: IncomingAlert): string {
  return incoming.normalized.monitoringTool ?? incoming.integration.name ?? "Generic Alert Endpoint";
}

/** What the receiver reports about each alert it recorded. */
export type ProcessedAlert = Pick<AlertRow, "id" | "iid" | "title">;

/**
 * The predicate of the partial unique index `alerts_open_fingerprint_key` (see the schema), which every lookup of an
 * unresolved alert by fingerprint and the ON CONFLICT below must write exactly so: with the status as a parameter, a
 * prepared statement's generic plan could not prove the index applies and would read every alert of the project.
 */
const unresolved = sql.raw(`status <> 'resolved'`);

/** Unresolved alerts with this fingerprint: an index probe. */
export const unresolvedWithFingerprint = (projectId: number, fingerprint: string) =>
  and(eq(alerts.projectId, projectId), eq(alerts.fingerprint, fingerprint), unresolved);

/**
 * Applies one alert payload:
 * - a firing payload whose fingerprint matches an unresolved alert counts one more event on it;
 * - otherwise it opens a new alert (a resolved match does not count: the problem is back), and its incident when the
 *   project asks for incidents;
 * - an acknowledging payload acknowledges the triggered alert it matches, or does nothing (returns null);
 * - a resolving payload resolves the unresolved alert it matches, or does nothing (returns null).
 * The unique index on open fingerprints makes grouping exact under any concurrency.
 */
export async function processAlert(db: Database, incoming: IncomingAlert): Promise<ProcessedAlert | null> {
  const fingerprint = fingerprintOf(incoming.normalized.fingerprintSource);
  if (incoming.normalized.action === "resolve") return fingerprint ? resolveMatching(db, incoming, fingerprint) : null;
  if (incoming.normalized.action === "acknowledge") return fingerprint ? acknowledgeMatching(db, incoming, fingerprint) : null;
  const settings = incoming.settings ?? (await readAlertSettings(db, incoming.projectId));
  const bot = await getAlertBot(db);
  const notifiesChat = incoming.notifiesChat ?? (await projectTakesAlertChat(db, incoming.projectId));
  const hold = incoming.hasSilences === false ? null : await silenceHolding(db, firingFields(incoming), incoming.now);
  // What a firing sends or opens is written in its transaction; without any, one autocommitted statement does.
  if (!settings.createIncident && !settings.sendEmail && !notifiesChat) return (await recordFiring(db, incoming, fingerprint, bot.id, hold)).alert;
  return db.transaction(async (tx) => {
    const { alert, opened, held } = await recordFiring(tx, incoming, fingerprint, bot.id, hold);
    // A silenced or snoozed alert is recorded and counted, and notifies when released (`releaseHeldAlerts`).
    if (held) return alert;
    if (opened && notifiesChat) await alertChatNotifications(tx, { projectId: incoming.projectId, alertId: alert.id, now: incoming.now });
    await enqueueAlertEmail(tx, settings, alert, "fired", incoming.now);
    if (!opened || !settings.createIncident) return alert;
    const [[row], project] = await Promise.all([tx.select().from(alerts).where(eq(alerts.id, alert.id)), projectWithNamespace(tx, incoming.projectId)]);
    if (!row) throw new Error(`alert ${alert.id} vanished inside its own transaction`);
    return (await openIncident(tx, project, row, bot, alertDetailsUrl(project, row), incoming.now)).alert;
  });
}

/**
 * A firing a silence holds marks its alert and holds it until the silence's window ends (or longer, when a snooze or
 * another silence holds it longer); any other leaves the alert's hold as it is. The silence is `holding`: the one
 * matched, only while its row is still the version matched, since the match may come from this process's copy of
 * the project's silences, which a change another process made has not reached yet; a silence deleted or changed
 * since holds nothing, and the alert notifies.
 */
const holdSet = sql`silenced_by_id = coalesce((select id from holding), ${alerts}.silenced_by_id),
  notify_after = case when not exists (select 1 from holding) then ${alerts}.notify_after
    else greatest(${alerts}.notify_after, ${placeholder("holdUntil")}::timestamptz) end`;
/** Whether the alert's notifications are held after this firing: a hold is due or running, or it is snoozed until resolved. */
const heldNow = sql.raw(`(notify_after is not null or snoozed_until_resolved) as held`);

/**
 * A firing alert in one statement, so one round trip and one commit: one more event on the unresolved alert with its
 * fingerprint, or else the project's next alert number, a new alert and its "logged an alert" note. The number comes
 * from the counter row, locked only until this statement commits. A concurrent request may open the same fingerprint
 * in between; the unique index then turns the insert into one more event on that alert, and the number taken is left
 * unused (a gap).
 */
const recordFiringStatement = preparedStatement<ProcessedAlert & { opened: boolean; held: boolean }>(
  () => sql`with holding as (
      select id from ${alertSilences} where id = ${placeholder("silencedBy")}::int and xmin::text = ${placeholder("silenceVersion")}::text
    ), repeat as (
      update ${alerts} set event_count = event_count + 1, ${holdSet}
      where project_id = ${placeholder("projectId")} and fingerprint = ${placeholder("fingerprint")} and ${unresolved}
      returning id, iid, title, ${heldNow}
    ), counter as (
      ${takeInternalIdSql(placeholder("projectId"), sql`'alerts'`, sql`not exists (select 1 from repeat)`)}
    ), fired as (
      insert into ${alerts} (project_id, integration_id, iid, title, description, severity, status, started_at,
        monitoring_tool, service, hosts, environment, fingerprint, payload, payload_format, silenced_by_id, notify_after,
        created_at, updated_at)
      select ${placeholder("projectId")}, ${placeholder("integrationId")}, counter.last_value, ${placeholder("title")},
        ${placeholder("description")}, ${placeholder("severity")}, 'triggered', ${placeholder("startedAt", alerts.startedAt)},
        ${placeholder("monitoringTool")}, ${placeholder("service")}, ${placeholder("hosts", alerts.hosts)}::text[],
        ${placeholder("environment")}, ${placeholder("fingerprint")}, ${placeholder("payload", alerts.payload)}::jsonb,
        ${placeholder("format")}, (select id from holding),
        case when exists (select 1 from holding) then ${placeholder("holdUntil")}::timestamptz end,
        ${placeholder("now", alerts.createdAt)}, ${placeholder("now", alerts.updatedAt)}
      from counter
      on conflict (project_id, fingerprint) where ${unresolved} and fingerprint is not null
      do update set event_count = ${alerts}.event_count + 1, ${holdSet}
      returning id, iid, title, iid = (select last_value from counter) as opened, ${heldNow}
    ), note as (
      insert into ${alertNotes} (alert_id, author_id, body, system, created_at)
      select id, ${placeholder("botId")}, ${placeholder("note")}, true, ${placeholder("now", alertNotes.createdAt)}
      from fired where opened
    )
    select id, iid, title, false as opened, held from repeat
    union all
    select id, iid, title, opened, held from fired`,
);

async function recordFiring(
  db: Executor,
  incoming: IncomingAlert,
  fingerprint: string | null,
  botId: number,
  hold: SilenceHold | null,
): Promise<{ alert: ProcessedAlert; opened: boolean; held: boolean }> {
  const { normalized } = incoming;
  const [row] = await recordFiringStatement(db, {
    projectId: incoming.projectId,
    integrationId: incoming.integration.id,
    fingerprint,
    title: normalized.title,
    description: normalized.description,
    severity: normalized.severity,
    startedAt: normalized.startedAt,
    monitoringTool: normalized.monitoringTool,
    service: normalized.service,
    hosts: normalized.hosts,
    environment: normalized.environmentName,
    payload: incoming.payload,
    format: incoming.format,
    now: incoming.now,
    botId,
    note: `logged an alert from **${sourceOf(incoming)}**`,
    silencedBy: hold?.silenceId ?? null,
    silenceVersion: hold?.version ?? null,
    holdUntil: hold?.until.toISOString() ?? null,
  });
  if (!row) throw new Error("recording a firing alert returned no row");
  const { opened, held, ...alert } = row;
  return { alert, opened, held };
}

/** What the silences match of a firing alert. */
function firingFields(incoming: IncomingAlert): FiringFields {
  const { normalized } = incoming;
  return {
    projectId: incoming.projectId,
    integration: incoming.integration,
    title: normalized.title,
    severity: normalized.severity,
    service: normalized.service,
    environment: normalized.environmentName,
    monitoringTool: normalized.monitoringTool,
    hosts: normalized.hosts,
    payload: incoming.payload,
  };
}

async function resolveMatching(db: Database, incoming: IncomingAlert, fingerprint: string): Promise<ProcessedAlert | null> {
  const bot = await getAlertBot(db);
  return db.transaction(async (tx) => {
    const [resolved] = await tx
      .update(alerts)
      .set({ status: "resolved", endedAt: incoming.normalized.endedAt ?? incoming.now, snoozedUntilResolved: false, updatedAt: incoming.now })
      .where(unresolvedWithFingerprint(incoming.projectId, fingerprint))
      .returning();
    if (!resolved) return null;
    await addSystemNote(tx, resolved.id, `logged a recovery alert from **${sourceOf(incoming)}**`, incoming.now, bot.id);
    await addSystemNote(tx, resolved.id, "changed the status to **Resolved**", incoming.now, bot.id);
    const settings = incoming.settings ?? (await readAlertSettings(tx, incoming.projectId));
    await enqueueAlertEmail(tx, settings, resolved, "resolved", incoming.now);
    if (resolved.issueId !== null && settings.autoCloseIncident) {
      const project = await projectWithNamespace(tx, incoming.projectId);
      await closeIncident(tx, project, resolved, bot, incoming.now);
    }
    return resolved;
  });
}

/** The source took the problem on: its triggered alert is acknowledged (an acknowledged one stays as it is). */
async function acknowledgeMatching(db: Database, incoming: IncomingAlert, fingerprint: string): Promise<ProcessedAlert | null> {
  const bot = await getAlertBot(db);
  return db.transaction(async (tx) => {
    const [acknowledged] = await tx
      .update(alerts)
      .set({ status: "acknowledged", updatedAt: incoming.now })
      .where(and(unresolvedWithFingerprint(incoming.projectId, fingerprint), eq(alerts.status, "triggered")))
      .returning({ id: alerts.id, iid: alerts.iid, title: alerts.title });
    if (!acknowledged) return null;
    await addSystemNote(tx, acknowledged.id, `logged an acknowledgement from **${sourceOf(incoming)}**`, incoming.now, bot.id);
    await addSystemNote(tx, acknowledged.id, "changed the status to **Acknowledged**", incoming.now, bot.id);
    return acknowledged;
  });
}

export async function projectWithNamespace(tx: Executor, projectId: number) {
  const [row] = await tx
    .select({ project: projects, namespace: namespaces })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(eq(projects.id, projectId));
  if (!row) throw new Error(`project ${projectId} vanished while an alert was processed`);
  return row;
}
