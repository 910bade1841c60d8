"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

/** Ends every browser session of the account (a lost laptop, a shared computer), then this one's cookie too. */
export function SignOutEverywhere({ signOutEverywhere }: { signOutEverywhere: () => Promise<ActionResult> }) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function onClick() {
    if (!window.confirm("Sign out of every browser where you are signed in, this one included?")) return;
    setPending(true);
    setFailure(null);
    const result = await signOutEverywhere();
    if (!result.ok) {
      setPending(false);
      setFailure(result.message);
      return;
    }
    await signOut({ callbackUrl: "/users/sign_in?notice=signed_out_everywhere" });
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <button type="button" className="button button-danger" disabled={pending} onClick={onClick}>
        Sign out everywhere
      </button>
    </>
  );
}
