"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { signIn } from "next-auth/react";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useForm } from "react-hook-form";
import { Notice } from "@/components/ui/notice";
import { TextField } from "@/components/ui/text-field";
import { otpFormSchema, signInFormSchema, type OtpForm, type SignInForm as SignInValues } from "@/lib/auth/form-schemas";

/** How each refusal of the credentials provider (lib/auth/sign-in.ts) reads to the person signing in. */
const failureMessages: Record<string, ReactNode> = {
  invalid_credentials: "Invalid login or password.",
  locked: "Your account is locked. Try again later.",
  blocked: "Your account has been blocked.",
  unconfirmed: (
    <>
      You have to confirm your email address before continuing.{" "}
      <Link href="/users/confirmation/new">Resend the confirmation email</Link>
    </>
  ),
  otp_invalid: "Invalid two-factor code.",
  throttled: "Too many failed sign-in attempts from your network. Wait a minute and try again.",
};

function failureMessage(reason: string): ReactNode {
  return failureMessages[reason] ?? "Sign-in failed. Please try again.";
}

/**
 * Two steps: login and password, then (only for accounts with two-factor authentication) a code. The password is
 * kept in memory between the steps because the provider checks everything again on each attempt.
 */
export function SignInForm({ callbackPath }: { callbackPath: string }) {
  const [pendingCredentials, setPendingCredentials] = useState<SignInValues | null>(null);
  const [failure, setFailure] = useState<ReactNode>(null);

  async function attempt(credentials: SignInValues, otp?: string): Promise<string | null> {
    const result = await signIn("credentials", { redirect: false, login: credentials.login, password: credentials.password, otp: otp ?? "" });
    if (!result) return "Sign-in failed. Please try again.";
    if (result.error) return result.error;
    // A full page load, so the navigation and every page render for the newly signed-in user.
    window.location.assign(callbackPath);
    return null;
  }

  async function submitPassword(values: SignInValues) {
    setFailure(null);
    const reason = await attempt(values);
    if (reason === "otp_required") setPendingCredentials(values);
    else if (reason) setFailure(failureMessage(reason));
  }

  async function submitOtp(values: OtpForm) {
    if (!pendingCredentials) return;
    setFailure(null);
    const reason = await attempt(pendingCredentials, values.otp);
    if (reason) setFailure(failureMessage(reason));
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {pendingCredentials ? (
        <OtpStep
          onSubmit={submitOtp}
          onCancel={() => {
            setPendingCredentials(null);
            setFailure(null);
          }}
        />
      ) : (
        <PasswordStep onSubmit={submitPassword} />
      )}
    </>
  );
}

function PasswordStep({ onSubmit }: { onSubmit: (values: SignInValues) => Promise<void> }) {
  const { register, handleSubmit, formState } = useForm<SignInValues>({ resolver: zodResolver(signInFormSchema) });
  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      <TextField label="Username or email" registration={register("login")} error={formState.errors.login?.message} autoComplete="username" autoFocus />
      <TextField
        label="Password"
        type="password"
        registration={register("password")}
        error={formState.errors.password?.message}
        autoComplete="current-password"
      />
      <button type="submit" className="button" disabled={formState.isSubmitting}>
        {formState.isSubmitting ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

function OtpStep({ onSubmit, onCancel }: { onSubmit: (values: OtpForm) => Promise<void>; onCancel: () => void }) {
  const { register, handleSubmit, formState } = useForm<OtpForm>({ resolver: zodResolver(otpFormSchema) });
  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      <h2>Two-factor authentication</h2>
      <TextField
        label="Two-factor code"
        registration={register("otp")}
        error={formState.errors.otp?.message}
        hint="Enter the 6-digit code from your authenticator app, or one of your recovery codes."
        autoComplete="one-time-code"
        inputMode="text"
        autoFocus
      />
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? "Verifying…" : "Verify code"}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Back
        </button>
      </div>
    </form>
  );
}
