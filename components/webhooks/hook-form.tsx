"use client";

import { useId } from "react";
import { SettingsForm } from "@/components/ui/settings-form";
import type { ActionResult } from "@/lib/forms/action-result";
import { hookFormSchema, type HookForm } from "@/lib/webhooks/form-schemas";

const triggers: { name: keyof HookForm; label: string; hint: string }[] = [
  { name: "pushEvents", label: "Push events", hint: "A push is made to the repository." },
  { name: "tagPushEvents", label: "Tag push events", hint: "A new tag is pushed to the repository." },
  { name: "noteEvents", label: "Comments", hint: "A comment is made or edited on an issue." },
  { name: "confidentialNoteEvents", label: "Confidential comments", hint: "A comment is made or edited on a confidential issue, or an internal note." },
  { name: "issuesEvents", label: "Issues events", hint: "An issue is created, updated, closed, or reopened." },
  { name: "confidentialIssuesEvents", label: "Confidential issues events", hint: "A confidential issue is created, updated, closed, or reopened." },
  { name: "memberEvents", label: "Member events", hint: "A member is added, changed or removed." },
  { name: "milestoneEvents", label: "Milestone events", hint: "A milestone is created, closed, reopened, or deleted." },
];

/** The fields of a webhook, for adding one and for editing it (`editing`: the secret token is never shown). */
export function HookFormFields({
  form,
  save,
  editing,
  savedMessage,
}: {
  form: HookForm;
  save: (form: HookForm) => Promise<ActionResult>;
  editing: boolean;
  savedMessage: string;
}) {
  const id = useId();
  return (
    <SettingsForm schema={hookFormSchema} settings={form} save={save} savedMessage={savedMessage}>
      {(register) => (
        <>
          <div className="field">
            <label htmlFor={`${id}-url`}>URL</label>
            <input id={`${id}-url`} type="url" required {...register("url")} />
            <p className="field-hint">The URL a POST request is sent to when one of the chosen events happens.</p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-name`}>Name (optional)</label>
            <input id={`${id}-name`} {...register("name")} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-description`}>Description (optional)</label>
            <textarea id={`${id}-description`} rows={2} {...register("description")} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-token`}>Secret token</label>
            <input id={`${id}-token`} type="password" autoComplete="new-password" {...register("token")} />
            <p className="field-hint">
              Sent in the <code>X-Gitlab-Token</code> header of each request.
              {editing ? " Leave blank to keep the current token; a new URL drops it unless you enter one." : ""}
            </p>
          </div>
          <fieldset className="field">
            <legend>Trigger</legend>
            {triggers.map((trigger) => (
              <label key={trigger.name} className="checkbox">
                <input type="checkbox" {...register(trigger.name)} />
                <span>
                  {trigger.label} <span className="muted">— {trigger.hint}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <div className="field">
            <label htmlFor={`${id}-strategy`}>Push events: branches</label>
            <select id={`${id}-strategy`} {...register("branchFilterStrategy")}>
              <option value="all_branches">All branches</option>
              <option value="wildcard">Wildcard pattern</option>
              <option value="regex">Regular expression</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-filter`}>Branch filter</label>
            <input id={`${id}-filter`} {...register("pushEventsBranchFilter")} />
            <p className="field-hint">
              A wildcard pattern such as <code>release/*</code>, or a regular expression; ignored for all branches.
            </p>
          </div>
          <label className="checkbox">
            <input type="checkbox" {...register("enableSslVerification")} />
            <span>Enable SSL verification</span>
          </label>
        </>
      )}
    </SettingsForm>
  );
}
