"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { CopyField } from "@/components/ui/copy-field";
import { TextField } from "@/components/ui/text-field";
import { confirmTwoFactorFormSchema, type ConfirmTwoFactorForm } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";
import { RecoveryCodes } from "./recovery-codes";

interface TwoFactorEnrollmentProps {
  qrCodeDataUrl: string;
  secret: string;
  confirm: (values: ConfirmTwoFactorForm) => Promise<ActionResult<{ recoveryCodes: string[] }>>;
}

export function TwoFactorEnrollment({ qrCodeDataUrl, secret, confirm }: TwoFactorEnrollmentProps) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<ConfirmTwoFactorForm>({ resolver: zodResolver(confirmTwoFactorFormSchema) });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["code", "password"]);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  async function onSubmit(values: ConfirmTwoFactorForm) {
    clear();
    const result = await confirm(values);
    if (result.ok) {
      setRecoveryCodes(result.data.recoveryCodes);
      return;
    }
    report(result);
  }

  if (recoveryCodes) {
    return (
      <>
        <RecoveryCodes codes={recoveryCodes} title="Two-factor authentication is enabled." />
        {/* Re-rendering from the server shows the enabled state and drops the codes from memory. */}
        <button type="button" className="button" onClick={() => router.refresh()}>
          I have stored my recovery codes
        </button>
      </>
    );
  }

  return (
    <>
      <section aria-labelledby="register-app-heading">
        <h2 id="register-app-heading">Register an authenticator app</h2>
        <div className="two-columns">
          {/* A data: URL made on the server; next/image would add nothing for a 200px QR code. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img className="qr-code" src={qrCodeDataUrl} width={200} height={200} alt="QR code for registering an authenticator app" />
          <div className="stack">
            <p>
              Scan the QR code with an authenticator app (for example FreeOTP, Aegis or Google Authenticator). If you
              cannot scan it, enter the secret key by hand.
            </p>
            <CopyField label="Secret key" value={secret} hint="Time-based, 6 digits, 30 seconds." />
          </div>
        </div>
      </section>
      <section aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">Confirm</h2>
        <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
          <FormFailureNotice failure={failure} />
          <TextField
            label="Verification code"
            registration={register("code")}
            error={formState.errors.code?.message}
            inputMode="numeric"
            autoComplete="one-time-code"
            hint="The 6-digit code your app shows now."
          />
          <TextField
            label="Current password"
            type="password"
            registration={register("password")}
            error={formState.errors.password?.message}
            autoComplete="current-password"
          />
          <div className="form-actions">
            <button type="submit" className="button" disabled={formState.isSubmitting}>
              Register with two-factor app
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
