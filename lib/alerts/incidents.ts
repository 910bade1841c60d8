import "server-only";
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { alerts, issueColumns, issues, type AlertRow, type UserRow } from "@/lib/db/schema";
import { insertIssue, recordIssueStateChange } from "@/lib/issues/issues";
import { bareIssueState, issueHooks, issueStateOf, projectTakesIssueEvents, type ProjectRef } from "@/lib/webhooks/events";
import { defaultAlertTitle } from "./normalize";

function incidentDescription(alert: AlertRow, detailsUrl: string): string {
  const lines = [
    `**Start time:** ${alert.startedAt.toISOString()}`,
    `**Severity:** ${alert.severity}`,
    alert.service ? `**Service:** ${alert.service}` : null,
    alert.monitoringTool ? `**Monitoring tool:** ${alert.monitoringTool}` : null,
    alert.hosts.length > 0 ? `**Hosts:** ${alert.hosts.join(" ")}` : null,
    alert.description ? `**Description:** ${alert.description}` : null,
    `**Alert:** ${detailsUrl}`,
  ];
  return lines.filter((line): line is string => line !== null).join("  \n");
}

/**
 * Opens the incident for a new alert (project setting `create_incident`): an issue of type incident by the alert bot,
 * recorded as an `opened` Issue event, linked from the alert, and sent to the project's issue hooks and chat
 * integrations. "New: Alert" becomes "New: Incident <iid>", as in GitLab.
 */
export async function openIncident(
  tx: Executor,
  view: ProjectRef,
  alert: AlertRow,
  bot: UserRow,
  detailsUrl: string,
  now: Date,
): Promise<AlertRow> {
  const issue = await insertIssue(
    tx,
    view,
    bot,
    { title: alert.title, description: incidentDescription(alert, detailsUrl), issueType: "incident" },
    now,
  );
  const titled =
    alert.title === defaultAlertTitle
      ? ((await tx.update(issues).set({ title: `New: Incident ${issue.iid}` }).where(eq(issues.id, issue.id)).returning(issueColumns))[0] ?? issue)
      : issue;
  await issueHooks(tx, { view, actor: bot, before: null, after: bareIssueState(titled), issue: titled, action: "open", now });
  const [linked] = await tx.update(alerts).set({ issueId: issue.id }).where(eq(alerts.id, alert.id)).returning();
  return linked ?? alert;
}

/**
 * Closes the alert's incident when the alert resolves (project setting `auto_close_incident`), and tells issue hooks
 * and chat integrations.
 */
export async function closeIncident(tx: Executor, view: ProjectRef, alert: AlertRow, bot: UserRow, now: Date): Promise<void> {
  if (alert.issueId === null) return;
  // The incident as it was, for the hooks' `changes`: read only when a hook or an integration takes issue events.
  const told = await projectTakesIssueEvents(tx, view.project.id, now);
  const [open] = told ? await tx.select(issueColumns).from(issues).where(and(eq(issues.id, alert.issueId), eq(issues.state, "opened"))) : [];
  const before = open ? await issueStateOf(tx, open) : null;
  const [closed] = await tx
    .update(issues)
    .set({ state: "closed", closedAt: now, closedById: bot.id, updatedAt: now })
    .where(and(eq(issues.id, alert.issueId), eq(issues.state, "opened")))
    .returning(issueColumns);
  if (!closed) return;
  await recordIssueStateChange(tx, view, closed, bot.id, "closed", now);
  if (before) await issueHooks(tx, { view, actor: bot, before, issue: closed, action: "close", now });
}

export async function incidentIid(tx: Executor, alert: AlertRow): Promise<number | null> {
  if (alert.issueId === null) return null;
  const [issue] = await tx.select({ iid: issues.iid }).from(issues).where(eq(issues.id, alert.issueId));
  return issue?.iid ?? null;
}
