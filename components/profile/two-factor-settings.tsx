"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { TextField } from "@/components/ui/text-field";
import { currentPasswordFormSchema, type CurrentPasswordForm } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";
import { RecoveryCodes } from "./recovery-codes";

interface TwoFactorSettingsProps {
  disable: (values: CurrentPasswordForm) => Promise<ActionResult>;
  regenerate: (values: CurrentPasswordForm) => Promise<ActionResult<{ recoveryCodes: string[] }>>;
}

/** For an account with two-factor authentication: new recovery codes, or turning it off. Both need the password. */
export function TwoFactorSettings({ disable, regenerate }: TwoFactorSettingsProps) {
  const router = useRouter();
  const pathname = usePathname();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <>
      <section aria-labelledby="regenerate-heading">
        <h2 id="regenerate-heading">Recovery codes</h2>
        {recoveryCodes ? (
          <RecoveryCodes codes={recoveryCodes} title="New recovery codes were generated. The old ones no longer work." />
        ) : (
          <>
            <p>Lost your recovery codes, or used most of them? Generate a new set; the old codes stop working.</p>
            <PasswordForm
              label="Regenerate recovery codes"
              submit={async (values) => {
                const result = await regenerate(values);
                if (result.ok) setRecoveryCodes(result.data.recoveryCodes);
                return result;
              }}
            />
          </>
        )}
      </section>
      <section aria-labelledby="disable-heading">
        <h2 id="disable-heading">Disable two-factor authentication</h2>
        <p>Your account will be protected by your password only.</p>
        <PasswordForm
          label="Disable two-factor authentication"
          danger
          submit={async (values) => {
            const result = await disable(values);
            if (result.ok) router.replace(`${pathname}?notice=disabled`);
            return result;
          }}
        />
      </section>
    </>
  );
}

function PasswordForm({
  label,
  danger,
  submit,
}: {
  label: string;
  danger?: boolean;
  submit: (values: CurrentPasswordForm) => Promise<ActionResult<unknown>>;
}) {
  const { register, handleSubmit, formState, setError, setFocus } = useForm<CurrentPasswordForm>({ resolver: zodResolver(currentPasswordFormSchema) });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["password"]);
  async function onSubmit(values: CurrentPasswordForm) {
    clear();
    const result = await submit(values);
    if (!result.ok) report(result);
  }
  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate aria-label={label}>
      <FormFailureNotice failure={failure} />
      <TextField
        label="Current password"
        type="password"
        registration={register("password")}
        error={formState.errors.password?.message}
        autoComplete="current-password"
      />
      <div className="form-actions">
        <button type="submit" className={danger ? "button button-danger" : "button"} disabled={formState.isSubmitting}>
          {label}
        </button>
      </div>
    </form>
  );
}
