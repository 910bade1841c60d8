import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { alerts, namespaces, projects } from "@/lib/db/schema";
import { alertDetailsUrl } from "@/lib/alerts/urls";
import { alertHookData } from "@/lib/webhooks/payloads";
import { enqueueChatNotifications, integrationsTake } from "./enqueue";

/** Whether an integration of the project takes alert events: a new alert is then written with its message, atomically. */
export async function projectTakesAlertChat(db: Executor, projectId: number): Promise<boolean> {
  const [row] = await db.select({ takes: sql<boolean>`${integrationsTake(projectId, ["alert"])}` }).from(sql`(select 1) as one`);
  return row?.takes === true;
}

/**
 * A new alert's message to the project's chat integrations that take alert events (GitLab's `execute_integrations`
 * in `process_new_alert`: new alerts only, not their repeats), written with the caller's executor. A project without
 * such an integration pays one lookup.
 */
export async function alertChatNotifications(tx: Executor, change: { projectId: number; alertId: number; now: Date }): Promise<void> {
  const [row] = await tx
    .select({ alert: alerts, project: projects, namespace: namespaces })
    .from(alerts)
    .innerJoin(projects, eq(projects.id, alerts.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(sql`${eq(alerts.id, change.alertId)} and ${integrationsTake(change.projectId, ["alert"])}`);
  if (!row) return;
  const view = { project: row.project, namespace: row.namespace };
  const data = alertHookData(row.alert, alertDetailsUrl(view, row.alert));
  await enqueueChatNotifications(tx, { view, notification: { event: "alert", data }, now: change.now });
}
