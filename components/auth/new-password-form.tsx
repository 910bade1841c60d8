"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { signOut } from "next-auth/react";
import { useForm, type FieldPath } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { TextField } from "@/components/ui/text-field";
import { changePasswordFormSchema, resetPasswordFormSchema, type ChangePasswordForm } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";
import { NewPasswordFields } from "./new-password-fields";

type NewPasswordValues = Partial<Pick<ChangePasswordForm, "currentPassword">> & Omit<ChangePasswordForm, "currentPassword">;

const newPasswordFields: FieldPath<NewPasswordValues>[] = ["currentPassword", "password", "passwordConfirmation"];

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
  const { register, handleSubmit, formState, setError, setFocus } = useForm<NewPasswordValues>({
    resolver: zodResolver(askCurrentPassword ? changePasswordFormSchema : resetPasswordFormSchema),
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, newPasswordFields);

  async function onSubmit(values: NewPasswordValues) {
    clear();
    const result = await submit(values);
    if (!result.ok) {
      report(result);
      return;
    }
    // The server ended every session of the account; clear this browser's cookie too and say why on the sign-in page.
    await signOut({ callbackUrl: doneUrl });
  }

  const { errors } = formState;
  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      <FormFailureNotice failure={failure} />
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
