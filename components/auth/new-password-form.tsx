"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { useForm, type FieldPath } from "react-hook-form";
import { applyFieldErrors } from "@/components/ui/apply-field-errors";
import { Notice } from "@/components/ui/notice";
import { TextField } from "@/components/ui/text-field";
import { changePasswordFormSchema, resetPasswordFormSchema, type ChangePasswordForm } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";
import { NewPasswordFields } from "./new-password-fields";

type NewPasswordValues = Partial<Pick<ChangePasswordForm, "currentPassword">> & Omit<ChangePasswordForm, "currentPassword">;

interface NewPasswordFormProps {
  /** A server action; with `askCurrentPassword` it gets the current password too. */
  submit: (values: NewPasswordValues) => Promise<ActionResult>;
  askCurrentPassword: boolean;
  submitLabel: string;
  /** Where to go once the password is set; every session has ended then, so this browser signs out first. */
  doneUrl: string;
}

/** A new password, typed twice: the profile's password page (with the current one) and a reset link's page. */
export function NewPasswordForm({ submit, askCurrentPassword, submitLabel, doneUrl }: NewPasswordFormProps) {
  const { register, handleSubmit, formState, setError } = useForm<NewPasswordValues>({
    resolver: zodResolver(askCurrentPassword ? changePasswordFormSchema : resetPasswordFormSchema),
  });
  const [failure, setFailure] = useState<string | null>(null);

  async function onSubmit(values: NewPasswordValues) {
    setFailure(null);
    const result = await submit(values);
    if (!result.ok) {
      const fields: FieldPath<NewPasswordValues>[] = ["currentPassword", "password", "passwordConfirmation"];
      setFailure(applyFieldErrors(result.fieldErrors, setError, fields) || result.message);
      return;
    }
    // The server ended every session of the account; clear this browser's cookie too and say why on the sign-in page.
    await signOut({ callbackUrl: doneUrl });
  }

  const { errors } = formState;
  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {askCurrentPassword ? (
        <TextField
          label="Current password"
          type="password"
          registration={register("currentPassword")}
          error={errors.currentPassword?.message}
          autoComplete="current-password"
          autoFocus
        />
      ) : null}
      <NewPasswordFields
        label="New password"
        password={register("password")}
        passwordConfirmation={register("passwordConfirmation")}
        errors={{ password: errors.password?.message, passwordConfirmation: errors.passwordConfirmation?.message }}
        autoFocus={!askCurrentPassword}
      />
      <button type="submit" className="button" disabled={formState.isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}
