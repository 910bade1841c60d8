"use server";

import { z } from "zod";
import { createAlertIncident, setAlertAssignees, updateAlert, updateAlertStatus, type AlertSnooze } from "@/lib/alerts/alerts";
import { alertAssigneeUsernameSchema, alertSnoozeSchema, alertStatusSchema, silenceFormSchema, silenceInputOfForm } from "@/lib/alerts/form-schemas";
import { createSilence, deleteSilence } from "@/lib/alerts/silences";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, projectPathSchema, runFormAction, runValueAction, toActionFailure } from "@/lib/forms/run-action";

const iidSchema = z.number().int().positive().max(2_147_483_647);

function alertListPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/alert_management` : undefined;
}

/** Triage from the alert list or details page (Developer+). */
export async function updateAlertStatusAction(projectPath: unknown, iid: unknown, status: unknown): Promise<ActionResult<{ status: string }>> {
  const ctx = await requireSessionContext(alertListPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, iid: iidSchema, status: alertStatusSchema }), { projectPath, iid, status });
  if (!parsed.ok) return parsed.failure;
  try {
    const { alert } = await updateAlertStatus(ctx, parsed.data.projectPath, parsed.data.iid, parsed.data.status);
    return actionSuccess({ status: alert.status });
  } catch (error) {
    return toActionFailure(error);
  }
}

/** "Create incident" on the alert details page (Developer+). */
export async function createAlertIncidentAction(projectPath: unknown, iid: unknown): Promise<ActionResult<{ issueIid: number }>> {
  const ctx = await requireSessionContext(alertListPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, iid: iidSchema }), { projectPath, iid });
  if (!parsed.ok) return parsed.failure;
  try {
    const { issueIid } = await createAlertIncident(ctx, parsed.data.projectPath, parsed.data.iid);
    return actionSuccess({ issueIid });
  } catch (error) {
    return toActionFailure(error);
  }
}

/** "Assign" and "Unassign" on the alert details page (Developer+): a username replaces the assignee, none unassigns. */
export async function setAlertAssigneeAction(
  projectPath: unknown,
  iid: unknown,
  username: unknown,
): Promise<ActionResult<{ assignees: { username: string; name: string }[] }>> {
  const schema = z.object({ projectPath: projectPathSchema, iid: iidSchema, username: alertAssigneeUsernameSchema });
  return runValueAction(alertListPage(projectPath), schema, { projectPath, iid, username }, async (ctx, data) => {
    const { assignees } = await setAlertAssignees(ctx, data.projectPath, data.iid, data.username ? [{ username: data.username }] : []);
    return { assignees: assignees.map((user) => ({ username: user.username, name: user.name })) };
  });
}

/** "Snooze" on the alert details page (Developer+): minutes, until resolved, or "off" to end the snooze. */
export async function snoozeAlertAction(projectPath: unknown, iid: unknown, snooze: unknown): Promise<ActionResult<{ snoozedUntil: string | null; untilResolved: boolean }>> {
  const schema = z.object({ projectPath: projectPathSchema, iid: iidSchema, snooze: alertSnoozeSchema });
  return runValueAction(alertListPage(projectPath), schema, { projectPath, iid, snooze }, async (ctx, data) => {
    const choice: AlertSnooze = data.snooze === "until_resolved" ? { untilResolved: true } : data.snooze === 0 ? { off: true } : { minutes: data.snooze };
    const { alert } = await updateAlert(ctx, data.projectPath, data.iid, { snooze: choice });
    return { snoozedUntil: alert.snoozedUntil?.toISOString() ?? null, untilResolved: alert.snoozedUntilResolved };
  });
}

function silencesPage(projectPath: unknown): string | undefined {
  const list = alertListPage(projectPath);
  return list && `${list}/silences`;
}

/** "Create silence" on the silences page (Maintainer+). */
export async function createSilenceAction(projectPath: unknown, form: unknown): Promise<ActionResult> {
  const schema = z.object({ projectPath: projectPathSchema, form: silenceFormSchema });
  return runFormAction(silencesPage(projectPath), schema, { projectPath, form }, (ctx, data) => createSilence(ctx, data.projectPath, silenceInputOfForm(data.form)));
}

/** "Delete" on the silences page (Maintainer+): the alerts it held notify at the next housekeeping pass. */
export async function deleteSilenceAction(projectPath: unknown, silenceId: unknown): Promise<ActionResult> {
  const schema = z.object({ projectPath: projectPathSchema, silenceId: iidSchema });
  return runFormAction(silencesPage(projectPath), schema, { projectPath, silenceId }, (ctx, data) => deleteSilence(ctx, data.projectPath, data.silenceId));
}
