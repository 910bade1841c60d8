"use server";

import type { ActionResult } from "@/lib/forms/action-result";
import { runFormAction } from "@/lib/forms/run-action";
import { notificationSettingsFormSchema } from "@/lib/users/form-schemas";
import { updateOwnNotificationSettings } from "@/lib/users/notification-settings";

/** Profile › Notifications › Save changes. */
export async function updateNotificationSettingsAction(input: unknown): Promise<ActionResult> {
  return runFormAction("/profile/notifications", notificationSettingsFormSchema, input, updateOwnNotificationSettings);
}
