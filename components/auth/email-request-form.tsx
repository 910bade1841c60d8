"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Notice } from "@/components/ui/notice";
import { TextField } from "@/components/ui/text-field";
import { emailRequestFormSchema, type EmailRequestForm as EmailRequestValues } from "@/lib/auth/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";

interface EmailRequestFormProps {
  /** A server action that answers the same whatever the address (it mails only to accounts it concerns). */
  request: (values: EmailRequestValues) => Promise<ActionResult>;
  submitLabel: string;
  /** Shown after every request: it must not say whether the address has an account. */
  sentMessage: string;
}

/** An email address sent to a server action that mails a link: "Forgot your password?" and "Resend confirmation". */
export function EmailRequestForm({ request, submitLabel, sentMessage }: EmailRequestFormProps) {
  const { register, handleSubmit, formState, reset } = useForm<EmailRequestValues>({ resolver: zodResolver(emailRequestFormSchema) });
  const [outcome, setOutcome] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  async function onSubmit(values: EmailRequestValues) {
    setOutcome(null);
    const result = await request(values);
    if (result.ok) {
      reset();
      setOutcome({ tone: "success", text: sentMessage });
    } else {
      setOutcome({ tone: "error", text: result.message });
    }
  }

  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      {outcome ? <Notice tone={outcome.tone}>{outcome.text}</Notice> : null}
      <TextField label="Email" type="email" registration={register("email")} error={formState.errors.email?.message} autoComplete="email" autoFocus />
      <button type="submit" className="button" disabled={formState.isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}
