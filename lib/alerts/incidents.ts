import "server-only";
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { alerts, issueColumns, issues, type AlertRow, type UserRow } from "@/lib/db/schema";
import { insertIssue, recordIssueStateChange } from "@/lib/issues/issues";
import { bareIssueState, issueHooks, issueListeners, issueStateOf, projectTakesIssueEvents, type ProjectRef } from "@/lib/webhooks/events";
import { addSystemNote } from "./system-notes";
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
 * Opens the incident for a new alert (project setting `create_incident`): an issue of type incident by `author` (the
 * alert bot, or whoever asked for it), recorded as an `opened` Issue event, linked from the alert, noted in the alert's
 * timeline ("created incident #<iid> for this alert", as GitLab), and sent to the project's issue hooks and chat
 * integrations. "New: Alert" becomes "New: Incident <iid>", as in GitLab. Whether hooks take it is asked with the
 * transaction's next statement, and the hooks, the link and the note are written alongside the issue's event, so they
 * add no round trip while the project's counters are locked.
 */
export async function openIncident(
  tx: Executor,
  view: ProjectRef,
  alert: AlertRow,
  author: UserRow,
  detailsUrl: string,
  now: Date,
): Promise<{ alert: AlertRow; issueIid: number }> {
  const listeners = issueListeners(tx, { projectId: view.project.id, issue: { confidential: false, issueType: "incident" }, action: "open", now });
  const { issue, alongside: linked } = await insertIssue(
    tx,
    view,
    author,
    { title: alert.title, description: incidentDescription(alert, detailsUrl), issueType: "incident" },
    now,
    async (inserted) => {
      // `then` sends the link now (a query goes out when it is first awaited), so it shares the retitling's round trip.
      const link = tx.update(alerts).set({ issueId: inserted.id }).where(eq(alerts.id, alert.id)).returning().then(([row]) => row);
      const note = addSystemNote(tx, alert.id, `created incident #${inserted.iid} for this alert`, now, author.id);
      const titled =
        alert.title === defaultAlertTitle
          ? ((await tx.update(issues).set({ title: `New: Incident ${inserted.iid}` }).where(eq(issues.id, inserted.id)).returning(issueColumns))[0] ?? inserted)
          : inserted;
      const [row] = await Promise.all([link, note, issueHooks(tx, { view, actor: author, before: null, after: bareIssueState(titled), issue: titled, action: "open", now, listeners })]);
      return row;
    },
  );
  return { alert: linked ?? alert, issueIid: issue.iid };
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

