"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { CopyField } from "@/components/ui/copy-field";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { ScopeCheckboxes } from "@/components/ui/scope-checkboxes";
import { Notice } from "@/components/ui/notice";
import { TextField } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { applicationFormSchema, selectableApplicationScopes, type ApplicationForm as ApplicationValues } from "@/lib/oauth/form-schemas";

export const secretShownOnce = "This is the only time the secret is accessible. Copy the secret and store it securely.";

interface ApplicationFormProps {
  create: (values: ApplicationValues) => Promise<ActionResult<{ name: string; uid: string; secret: string }>>;
}

/** Registers an OAuth application; after saving, shows its Application ID and (once) its secret. */
export function ApplicationForm({ create }: ApplicationFormProps) {
  const router = useRouter();
  const confidentialHintId = useId();
  const { register, handleSubmit, formState, setError, setFocus, reset } = useForm<ApplicationValues>({
    resolver: zodResolver(applicationFormSchema),
    defaultValues: { name: "", redirectUri: "", confidential: true, scopes: [] },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "redirectUri", "confidential", "scopes"]);
  const [created, setCreated] = useState<{ name: string; uid: string; secret: string } | null>(null);

  async function onSubmit(values: ApplicationValues) {
    clear();
    setCreated(null);
    const result = await create(values);
    if (!result.ok) {
      report(result);
      return;
    }
    setCreated(result.data);
    reset();
    router.refresh();
  }

  const { errors } = formState;
  return (
    <>
      {created ? (
        <section className="card section stack oauth-card" aria-labelledby="created-application-heading" aria-live="polite">
          <h2 id="created-application-heading">Application {created.name} was created</h2>
          <CopyField label="Application ID" value={created.uid} />
          <CopyField label="Secret" value={created.secret} />
          <Notice tone="warning">{secretShownOnce}</Notice>
        </section>
      ) : null}
      <section aria-labelledby="new-application-heading">
        <h2 id="new-application-heading">Add new application</h2>
        <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
          <FormFailureNotice failure={failure} />
          <TextField label="Name" registration={register("name")} error={errors.name?.message} required />
          <TextField
            label="Redirect URI"
            multiline
            registration={register("redirectUri")}
            error={errors.redirectUri?.message}
            hint="Use one line per URI"
            required
          />
          <div className="field">
            <label className="choice">
              <input type="checkbox" aria-describedby={confidentialHintId} {...register("confidential")} />
              <span className="choice-label">Confidential</span>
            </label>
            <p className="field-hint" id={confidentialHintId}>
              Enable only for confidential applications exclusively used by a trusted backend server that can securely
              store the client secret. Do not enable for native-mobile, single-page, or other JavaScript applications
              because they cannot keep the client secret confidential.
            </p>
          </div>
          <ScopeCheckboxes options={selectableApplicationScopes} registration={register("scopes")} error={errors.scopes?.message} />
          <div className="form-actions">
            <button type="submit" className="button" disabled={formState.isSubmitting}>
              Save application
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
