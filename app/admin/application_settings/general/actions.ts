"use server";

import type { ActionResult } from "@/lib/forms/action-result";
import { runFormAction } from "@/lib/forms/run-action";
import { instanceSettingsFormSchema } from "@/lib/instance/form-schemas";
import { updateInstanceSettings } from "@/lib/instance/settings";

/** Admin area › Settings › Save changes. */
export async function updateInstanceSettingsAction(input: unknown): Promise<ActionResult> {
  return runFormAction("/admin/application_settings/general", instanceSettingsFormSchema, input, updateInstanceSettings);
}
