"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { signIn } from "next-auth/react";
import { useForm } from "react-hook-form";
import { TextField } from "@/components/ui/text-field";
import { signUpFormSchema, type SignUpForm as SignUpValues } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { NewPasswordFields } from "./new-password-fields";

/** `signUp` is a server action, passed in by the page. */
export function SignUpForm({ signUp }: { signUp: (values: SignUpValues) => Promise<ActionResult<{ username: string }>> }) {
  const { register, handleSubmit, formState, setError, setFocus } = useForm<SignUpValues>({ resolver: zodResolver(signUpFormSchema) });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "username", "email", "password", "passwordConfirmation"]);

  async function onSubmit(values: SignUpValues) {
    clear();
    const result = await signUp(values);
    if (!result.ok) {
      report(result);
      return;
    }
    const signedIn = await signIn("credentials", { redirect: false, login: values.username, password: values.password });
    // With EMAIL_CONFIRMATION=hard the account may not sign in before the address is confirmed.
    const next = !signedIn?.error ? "/projects" : signedIn.error === "unconfirmed" ? "/users/almost_there" : "/users/sign_in";
    window.location.assign(next);
  }

  const { errors } = formState;
  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      <FormFailureNotice failure={failure} />
      <TextField label="Name" registration={register("name")} error={errors.name?.message} autoComplete="name" autoFocus />
      <TextField
        label="Username"
        registration={register("username")}
        error={errors.username?.message}
        autoComplete="username"
        hint="Letters, digits, '_', '-' and '.'. Your projects live under this name."
      />
      <TextField label="Email" type="email" registration={register("email")} error={errors.email?.message} autoComplete="email" />
      <NewPasswordFields
        label="Password"
        password={register("password")}
        passwordConfirmation={register("passwordConfirmation")}
        errors={{ password: errors.password?.message, passwordConfirmation: errors.passwordConfirmation?.message }}
      />
      <button type="submit" className="button" disabled={formState.isSubmitting}>
        {formState.isSubmitting ? "Creating account…" : "Register"}
      </button>
    </form>
  );
}
