import "server-only";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { alertNotes, alerts, internalIds, namespaces, projects, type AlertIntegrationRow, type AlertRow } from "@/lib/db/schema";
import { getAlertBot } from "./bot";
import { fingerprintOf } from "./fingerprint";
import { closeIncident, incidentIid, openIncident } from "./incidents";
import { readAlertSettings } from "./settings";
import { alertDetailsUrl } from "./urls";
import type { NormalizedAlert } from "./normalize";

export interface IncomingAlert {
  projectId: number;
  integration: AlertIntegrationRow;
  normalized: NormalizedAlert;
  payload: unknown;
  now: Date;
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
  try {
    return await openAlert(db, incoming, fingerprint);
  } catch (error) {
    // Someone reopened an alert with this fingerprint meanwhile; the index refused a second open one: group into it.
    if (fingerprint && violatedUniqueConstraint(error) === "alerts_open_fingerprint_key") {
      const grouped = await countRepeat(db, incoming.projectId, fingerprint);
      if (grouped) return grouped;
    }
    throw error;
  }
}

async function openAlert(db: Database, incoming: IncomingAlert, fingerprint: string | null): Promise<AlertRow> {
  return db.transaction(async (tx) => {
    // Taking the project's alert counter serializes new alerts of one project, so the repeat check below and the
    // insert cannot interleave with another request's.
    const lastIid = await lockAlertCounter(tx, incoming.projectId);
    if (fingerprint) {
      const grouped = await countRepeat(tx, incoming.projectId, fingerprint);
      if (grouped) return grouped;
    }
    const iid = lastIid + 1;
    await tx
      .update(internalIds)
      .set({ lastValue: iid })
      .where(and(eq(internalIds.projectId, incoming.projectId), eq(internalIds.usage, "alerts")));
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
      .returning();
    if (!alert) throw new Error("insert into alerts returned no row");
    await addSystemNote(tx, alert.id, `logged an alert from **${sourceOf(incoming)}**`, incoming.now);
    const settings = await readAlertSettings(tx, incoming.projectId);
    if (!settings.createIncident) return alert;
    const project = await projectWithNamespace(tx, incoming.projectId);
    const bot = await getAlertBot(tx);
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

async function lockAlertCounter(tx: Executor, projectId: number): Promise<number> {
  const [counter] = await tx
    .insert(internalIds)
    .values({ projectId, usage: "alerts", lastValue: 0 })
    .onConflictDoUpdate({ target: [internalIds.projectId, internalIds.usage], set: { lastValue: sql`${internalIds.lastValue}` } })
    .returning({ lastValue: internalIds.lastValue });
  return counter?.lastValue ?? 0;
}

async function resolveMatching(db: Database, incoming: IncomingAlert, fingerprint: string): Promise<AlertRow | null> {
  return db.transaction(async (tx) => {
    const [resolved] = await tx
      .update(alerts)
      .set({ status: "resolved", endedAt: incoming.normalized.endedAt ?? incoming.now, updatedAt: incoming.now })
      .where(openWithFingerprint(incoming.projectId, fingerprint))
      .returning();
    if (!resolved) return null;
    await addSystemNote(tx, resolved.id, `logged a recovery alert from **${sourceOf(incoming)}**`, incoming.now);
    await addSystemNote(tx, resolved.id, "changed the status to **Resolved**", incoming.now);
    if (resolved.issueId !== null && (await readAlertSettings(tx, incoming.projectId)).autoCloseIncident) {
      const project = await projectWithNamespace(tx, incoming.projectId);
      await closeIncident(tx, project.project, resolved, await getAlertBot(tx), incoming.now);
    }
    return resolved;
  });
}

export async function addSystemNote(tx: Executor, alertId: number, body: string, now: Date, authorId?: number): Promise<void> {
  const author = authorId ?? (await getAlertBot(tx)).id;
  await tx.insert(alertNotes).values({ alertId, authorId: author, body, system: true, createdAt: now });
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
