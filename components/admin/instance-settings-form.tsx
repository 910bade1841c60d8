"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";
import { instanceSettingsFormSchema, type InstanceSettingsForm as Settings } from "@/lib/instance/form-schemas";

/** Admin area › Settings: the instance's switches, saved together. */
export function InstanceSettingsForm({ settings, save }: { settings: Settings; save: (settings: Settings) => Promise<ActionResult> }) {
  const router = useRouter();
  const { register, handleSubmit, formState } = useForm<Settings>({
    resolver: zodResolver(instanceSettingsFormSchema),
    defaultValues: settings,
  });
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  async function onSubmit(values: Settings) {
    setMessage(null);
    const result = await save(values);
    setMessage(result.ok ? { tone: "success", text: "Application settings saved successfully." } : { tone: "error", text: result.message });
    if (result.ok) router.refresh();
  }

  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
      <fieldset className="stack">
        <legend>OAuth provider</legend>
        <label className="checkbox">
          <input type="checkbox" aria-describedby="authorization-response-iss-help" {...register("oauthAuthorizationResponseIss")} />
          <span>Send the issuer (iss) with authorization responses</span>
        </label>
        <p id="authorization-response-iss-help" className="muted">
          RFC 9207: every answer to an application&apos;s redirect URI (a code, an error, a denial) names this server, and
          discovery says so. GitLab sends neither, and sign-in libraries set up for GitLab without an issuer (Auth.js,
          NextAuth.js) refuse such answers; turn it on only when your applications are set up with this server&apos;s issuer
          and want it.
        </p>
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Save changes
        </button>
      </div>
    </form>
  );
}
