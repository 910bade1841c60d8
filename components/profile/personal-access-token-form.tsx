"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { CopyField } from "@/components/ui/copy-field";
import { ScopeCheckboxes } from "@/components/ui/scope-checkboxes";
import { TextField } from "@/components/ui/text-field";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";
import {
  adminPersonalAccessTokenScopes,
  personalAccessTokenFormSchema,
  selectablePersonalAccessTokenScopes,
  type PersonalAccessTokenForm as TokenValues,
} from "@/lib/users/form-schemas";

interface PersonalAccessTokenFormProps {
  create: (values: TokenValues) => Promise<ActionResult<{ name: string; token: string }>>;
  /** Today (UTC) as YYYY-MM-DD, from the server: the earliest expiry is tomorrow. */
  today: string;
  /** Administrators may also give their tokens the `sudo` scope. */
  admin: boolean;
}

export function PersonalAccessTokenForm({ create, today, admin }: PersonalAccessTokenFormProps) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus, reset } = useForm<TokenValues>({
    resolver: zodResolver(personalAccessTokenFormSchema),
    defaultValues: { name: "", scopes: [], expiresAt: "" },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "expiresAt", "scopes"]);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);

  async function onSubmit(values: TokenValues) {
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
        <div className="card section stack" aria-live="polite">
          <Notice tone="success" title={`Your new personal access token "${created.name}" has been created.`}>
            <p>Copy it now: you will not be able to see it again.</p>
          </Notice>
          <CopyField label="Your new personal access token" value={created.token} />
        </div>
      ) : null}
      <section aria-labelledby="new-token-heading">
        <h2 id="new-token-heading">Add a personal access token</h2>
        <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
          <FormFailureNotice failure={failure} />
          <TextField label="Token name" registration={register("name")} error={errors.name?.message} hint="What the token is for, e.g. the tool that uses it." />
          <TextField
            label="Expiration date"
            type="date"
            registration={register("expiresAt")}
            error={errors.expiresAt?.message}
            hint={`Optional. The token stops working at the start of that day (UTC). Today is ${today}.`}
          />
          <ScopeCheckboxes
            options={admin ? [...selectablePersonalAccessTokenScopes, ...adminPersonalAccessTokenScopes] : selectablePersonalAccessTokenScopes}
            registration={register("scopes")}
            error={errors.scopes?.message}
          />
          <div className="form-actions">
            <button type="submit" className="button" disabled={formState.isSubmitting}>
              Create personal access token
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
