"use server";

import { z } from "zod";
import { updateAlertStatus } from "@/lib/alerts/alerts";
import { alertStatusSchema } from "@/lib/alerts/form-schemas";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";

const projectPathSchema = z.string().regex(/^[^/]+\/[^/]+$/, "is not a project path");

/** Triage from the alert list or details page (Developer+). */
export async function updateAlertStatusAction(projectPath: unknown, iid: unknown, status: unknown): Promise<ActionResult<{ status: string }>> {
  const ctx = await requireSessionContext(
    typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/alert_management` : undefined,
  );
  const parsed = parseActionInput(
    z.object({ projectPath: projectPathSchema, iid: z.number().int().positive().max(2_147_483_647), status: alertStatusSchema }),
    { projectPath, iid, status },
  );
  if (!parsed.ok) return parsed.failure;
  try {
    const { alert } = await updateAlertStatus(ctx, parsed.data.projectPath, parsed.data.iid, parsed.data.status);
    return actionSuccess({ status: alert.status });
  } catch (error) {
    return toActionFailure(error);
  }
}
