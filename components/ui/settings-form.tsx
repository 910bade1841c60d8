"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { useForm, type DefaultValues, type FieldValues, type UseFormRegister } from "react-hook-form";
import type { z } from "zod";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

/**
 * A form of settings saved all at once with "Save changes": says whether the save worked, and refreshes the page so
 * what it shows is what was stored. `children` lays out the fields with the form's `register`.
 */
export function SettingsForm<Settings extends FieldValues>({
  schema,
  settings,
  save,
  savedMessage,
  children,
}: {
  schema: z.ZodType<Settings, Settings>;
  settings: Settings;
  save: (settings: Settings) => Promise<ActionResult>;
  savedMessage: string;
  children: (register: UseFormRegister<Settings>) => ReactNode;
}) {
  const router = useRouter();
  const { register, handleSubmit, formState } = useForm<Settings>({
    resolver: zodResolver(schema),
    defaultValues: settings as DefaultValues<Settings>,
  });
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  async function onSubmit(values: Settings) {
    setMessage(null);
    const result = await save(values);
    setMessage(result.ok ? { tone: "success", text: savedMessage } : { tone: "error", text: result.message });
    if (result.ok) router.refresh();
  }

  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
      {children(register)}
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Save changes
        </button>
      </div>
    </form>
  );
}
