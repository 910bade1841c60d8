"use client";

import { SettingsForm } from "@/components/ui/settings-form";
import type { ActionResult } from "@/lib/forms/action-result";
import { notificationSettingsFormSchema, type NotificationSettingsForm } from "@/lib/users/form-schemas";

/** The account's notification settings, saved all at once. */
export function NotificationSettings({
  settings,
  save,
}: {
  settings: NotificationSettingsForm;
  save: (settings: NotificationSettingsForm) => Promise<ActionResult>;
}) {
  return (
    <SettingsForm schema={notificationSettingsFormSchema} settings={settings} save={save} savedMessage="Notification settings saved.">
      {(register) => (
        <fieldset className="stack">
          <legend>Alerts</legend>
          <label className="checkbox">
            <input type="checkbox" {...register("alertEmails")} />
            <span>Email me about alerts of projects I maintain</span>
          </label>
          <p className="muted">
            Projects that send alert emails send them to their Owners and Maintainers: when an alert is triggered, at most once a minute
            while it keeps firing, and when it is resolved.
          </p>
        </fieldset>
      )}
    </SettingsForm>
  );
}
