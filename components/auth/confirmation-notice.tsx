"use client";

import { useState } from "react";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

/**
 * Shown on every page to a signed-in user whose address is not confirmed yet, with a way to have the link sent again.
 */
export function ConfirmationNotice({ email, resend }: { email: string; resend: () => Promise<ActionResult> }) {
  const [state, setState] = useState<"idle" | "sending" | "sent" | "failed">("idle");

  async function onResend() {
    setState("sending");
    setState((await resend()).ok ? "sent" : "failed");
  }

  return (
    <Notice tone="warning" title="Please confirm your email address">
      <p>
        We sent a confirmation link to <strong>{email}</strong>. Until you open it, applications you sign in to are told
        your address is not verified, and you may have to confirm it before you can sign in again.
      </p>
      <p>
        {state === "sent" ? (
          <>A new confirmation link is on its way to {email}.</>
        ) : (
          <button type="button" className="button button-secondary button-small" disabled={state === "sending"} onClick={onResend}>
            Resend confirmation email
          </button>
        )}
        {state === "failed" ? <> The link could not be sent. Please try again.</> : null}
      </p>
    </Notice>
  );
}
