import "server-only";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import { nextInternalId } from "@/lib/db/internal-ids";
import { alertNotes, alerts, namespaces, projects, type AlertIntegrationRow, type AlertRow } from "@/lib/db/schema";
import { getAlertBot } from "./bot";
import { fingerprintOf } from "./fingerprint";
import { closeIncident, incidentIid, openIncident } from "./incidents";
import { readAlertSettings, type AlertSettings } from "./settings";
import { alertDetailsUrl } from "./urls";
import type { NormalizedAlert } from "./normalize";

export interface IncomingAlert {
  projectId: number;
  integration: AlertIntegrationRow;
  normalized: NormalizedAlert;
  payload: unknown;
  now: Date;
  /** The project's alert settings when the caller already read them; read here otherwise. */
  settings?: AlertSettings;
}

/** Who the system notes say sent the alert: its monitoring tool, else the integration's name. */
function sourceOf(incoming: IncomingAlert): string {
  return incoming.normalized.monitoringTool ?? incoming.integration.name ?? "Generic Alert Endpoint";
}

const openWithFingerprint = (projectId: number, fingerprint: string) =>
  and(eq(alerts.projectId, projectId), eq(alerts.fingerprint, fingerprint), ne(alerts.status, "resolved"));

/**
 * Applies one alert payload:
 * - a firing payload whose fingerprint matches an unresolved alert counts one more event on it;
 * - otherwise it opens a new alert (a resolved match does not count: the problem is back);
 * - a resolving payload resolves the unresolved alert it matches, or does nothing (returns null).
 * The unique index on open fingerprints makes grouping exact under any concurrency.
 */
export async function processAlert(db: Database, incoming: IncomingAlert): Promise<AlertRow | null> {
  const fingerprint = fingerprintOf(incoming.normalized.fingerprintSource);
  if (incoming.normalized.resolving) return fingerprint ? resolveMatching(db, incoming, fingerprint) : null;
  if (fingerprint) {
    const grouped = await countRepeat(db, incoming.projectId, fingerprint);
    if (grouped) return grouped;
  }
  return openAlert(db, incoming, fingerprint);
}

/**
 * A new alert. Its number is taken in a short statement of its own, so new alerts of one project never wait for each
 * other's transactions. The insert itself groups into an open alert that a concurrent request with the same
 * fingerprint opened first (the unique index decides); the number taken for it is then left unused, a gap.
 */
async function openAlert(db: Database, incoming: IncomingAlert, fingerprint: string | null): Promise<AlertRow> {
  const iid = await nextInternalId(db, incoming.projectId, "alerts");
  const bot = await getAlertBot(db);
  return db.transaction(async (tx) => {
    const { normalized } = incoming;
    const [alert] = await tx
      .insert(alerts)
      .values({
        projectId: incoming.projectId,
        integrationId: incoming.integration.id,
        iid,
        title: normalized.title,
        description: normalized.description,
        severity: normalized.severity,
        status: "triggered",
        startedAt: normalized.startedAt,
        monitoringTool: normalized.monitoringTool,
        service: normalized.service,
        hosts: normalized.hosts,
        environment: normalized.environmentName,
        fingerprint,
        payload: incoming.payload,
        createdAt: incoming.now,
        updatedAt: incoming.now,
      })
      .onConflictDoUpdate({
        target: [alerts.projectId, alerts.fingerprint],
        targetWhere: sql`${alerts.status} <> 'resolved' and ${alerts.fingerprint} is not null`,
        set: { eventCount: sql`${alerts.eventCount} + 1` },
      })
      .returning();
    if (!alert) throw new Error("insert into alerts returned no row");
    if (alert.iid !== iid) return alert;
    await addSystemNote(tx, alert.id, `logged an alert from **${sourceOf(incoming)}**`, incoming.now, bot.id);
    const settings = incoming.settings ?? (await readAlertSettings(tx, incoming.projectId));
    if (!settings.createIncident) return alert;
    const project = await projectWithNamespace(tx, incoming.projectId);
    const linked = await openIncident(tx, project.project, alert, bot, alertDetailsUrl(project, alert), incoming.now);
    await addSystemNote(tx, alert.id, `created incident #${await incidentIid(tx, linked)} for this alert`, incoming.now, bot.id);
    return linked;
  });
}

async function countRepeat(db: Executor, projectId: number, fingerprint: string): Promise<AlertRow | undefined> {
  const [grouped] = await db
    .update(alerts)
    .set({ eventCount: sql`${alerts.eventCount} + 1` })
    .where(openWithFingerprint(projectId, fingerprint))
    .returning();
  return grouped;
}

async function resolveMatching(db: Database, incoming: IncomingAlert, fingerprint: string): Promise<AlertRow | null> {
  const bot = await getAlertBot(db);
  return db.transaction(async (tx) => {
    const [resolved] = await tx
      .update(alerts)
      .set({ status: "resolved", endedAt: incoming.normalized.endedAt ?? incoming.now, updatedAt: incoming.now })
      .where(openWithFingerprint(incoming.projectId, fingerprint))
      .returning();
    if (!resolved) return null;
    await addSystemNote(tx, resolved.id, `logged a recovery alert from **${sourceOf(incoming)}**`, incoming.now, bot.id);
    await addSystemNote(tx, resolved.id, "changed the status to **Resolved**", incoming.now, bot.id);
    const settings = incoming.settings ?? (await readAlertSettings(tx, incoming.projectId));
    if (resolved.issueId !== null && settings.autoCloseIncident) {
      const project = await projectWithNamespace(tx, incoming.projectId);
      await closeIncident(tx, project.project, resolved, bot, incoming.now);
    }
    return resolved;
  });
}

export async function addSystemNote(tx: Executor, alertId: number, body: string, now: Date, authorId: number | null): Promise<void> {
  await tx.insert(alertNotes).values({ alertId, authorId, body, system: true, createdAt: now });
}

async function projectWithNamespace(tx: Executor, projectId: number) {
  const [row] = await tx
    .select({ project: projects, namespace: namespaces })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(eq(projects.id, projectId));
  if (!row) throw new Error(`project ${projectId} vanished while an alert was processed`);
  return row;
}
