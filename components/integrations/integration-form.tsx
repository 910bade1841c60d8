"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useForm, type FieldPath } from "react-hook-form";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import { FieldError, TextField } from "@/components/ui/text-field";
import { useServerErrors } from "@/components/ui/use-server-errors";
import type { ActionResult } from "@/lib/forms/action-result";
import { integrationFormSchema, type IntegrationForm, type triggerOptions } from "@/lib/integrations/form-schemas";

export interface IntegrationFormProps {
  form: IntegrationForm;
  /** What the integration's settings hold (GitLab's fields for it). */
  shows: { username: boolean; channels: boolean; labels: boolean; notifyOnlyBrokenPipelines: boolean };
  triggers: typeof triggerOptions;
  webhookExample: string;
  hasWebhook: boolean;
  save: (form: IntegrationForm) => Promise<ActionResult>;
  test: (form: IntegrationForm) => Promise<ActionResult<string>>;
}

const branchLabels = {
  default: "Default branch",
  protected: "Protected branches",
  default_and_protected: "Default branch and protected branches",
  all: "All branches",
} as const;

/** An integration's settings, GitLab's fields for it: the connection, the triggers and the notification settings. */
export function IntegrationFormFields({ form, shows, triggers, webhookExample, hasWebhook, save, test }: IntegrationFormProps) {
  const router = useRouter();
  const id = useId();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<IntegrationForm>({
    resolver: zodResolver(integrationFormSchema),
    defaultValues: form,
  });
  const fields: FieldPath<IntegrationForm>[] = [
    "active",
    "webhook",
    "username",
    "channel",
    ...triggers.flatMap((trigger) => [trigger.toggle, trigger.channel]),
    "notifyOnlyBrokenPipelines",
    "branchesToBeNotified",
    "labelsToBeNotified",
    "labelsToBeNotifiedBehavior",
  ];
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, fields);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<ActionResult<string | undefined>>, success: (data: string | undefined) => string) {
    clear();
    setDone(null);
    setBusy(true);
    try {
      const result = await action();
      if (!result.ok) {
        report(result);
        return;
      }
      setDone(success(result.data));
      router.refresh();
    } finally {
      setBusy(false);
    }
  }

  const onSave = handleSubmit((values) => run(() => save(values), () => "Integration settings saved."));
  const onTest = handleSubmit((values) => run(() => test(values), (message) => message ?? ""));
  const { errors } = formState;
  return (
    <form className="stack" onSubmit={onSave} noValidate>
      <FormFailureNotice failure={failure} />
      {done ? <Notice tone="success">{done}</Notice> : null}
      <label className="checkbox">
        <input type="checkbox" {...register("active")} />
        <span>Active</span>
      </label>
      <TextField
        label="Webhook"
        type="password"
        autoComplete="off"
        registration={register("webhook")}
        error={errors.webhook?.message}
        hint={
          <>
            For example, <code>{webhookExample}</code>. {hasWebhook ? "A webhook is saved: leave blank to keep it." : null}
          </>
        }
      />
      {shows.username ? <TextField label="Username" registration={register("username")} error={errors.username?.message} hint="The name the messages are posted as." /> : null}
      {shows.channels ? (
        <TextField label="Default channel" registration={register("channel")} error={errors.channel?.message} hint="Used for events without channels of their own, for example #general." />
      ) : null}
      <fieldset className="field">
        <legend>Trigger</legend>
        {triggers.map((trigger) => (
          <div key={trigger.event} className="stack">
            <label className="checkbox">
              <input type="checkbox" {...register(trigger.toggle)} />
              <span>
                {trigger.label} <span className="muted">— {trigger.hint}</span>
              </span>
            </label>
            {shows.channels ? (
              <TextField
                label={`${trigger.label} channels`}
                registration={register(trigger.channel)}
                error={errors[trigger.channel]?.message}
                hint="Comma-separated; blank sends to the default channel."
              />
            ) : null}
          </div>
        ))}
      </fieldset>
      <fieldset className="field">
        <legend>Notification settings</legend>
        {shows.notifyOnlyBrokenPipelines ? (
          <label className="checkbox">
            <input type="checkbox" {...register("notifyOnlyBrokenPipelines")} />
            <span>Notify only broken pipelines</span>
          </label>
        ) : null}
        <div className="field">
          <label htmlFor={`${id}-branches`}>Branches for which notifications are to be sent</label>
          <select id={`${id}-branches`} aria-invalid={errors.branchesToBeNotified ? true : undefined} {...register("branchesToBeNotified")}>
            {Object.entries(branchLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <FieldError message={errors.branchesToBeNotified?.message} />
        </div>
        {shows.labels ? (
          <>
            <TextField
              label="Labels to be notified"
              registration={register("labelsToBeNotified")}
              error={errors.labelsToBeNotified?.message}
              hint="Send notifications for issue and comment events with the listed labels only, for example ~backend,~frontend. Leave blank for all events."
            />
            <div className="field">
              <label htmlFor={`${id}-behavior`}>Labels to be notified behavior</label>
              <select id={`${id}-behavior`} {...register("labelsToBeNotifiedBehavior")}>
                <option value="match_any">Match any of the labels</option>
                <option value="match_all">Match all of the labels</option>
              </select>
              <FieldError message={errors.labelsToBeNotifiedBehavior?.message} />
            </div>
          </>
        ) : null}
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="button" disabled={busy}>
          Save changes
        </button>{" "}
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => void onTest()}>
          Test settings
        </button>
      </div>
    </form>
  );
}
