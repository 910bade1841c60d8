"use server";

import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { instanceSettingsFormSchema } from "@/lib/instance/form-schemas";
import { updateInstanceSettings } from "@/lib/instance/settings";

/** Admin area › Settings › Save changes. */
export async function updateInstanceSettingsAction(input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext("/admin/application_settings/general");
  const parsed = parseActionInput(instanceSettingsFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await updateInstanceSettings(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
