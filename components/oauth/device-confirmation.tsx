"use client";

import { useActionState } from "react";
import { Notice } from "@/components/ui/notice";
import { ScopeList } from "./scope-list";
import type { ActionResult } from "@/lib/forms/action-result";

type Result = ActionResult<{ decision: "approved" | "denied" }> | null;

interface DeviceConfirmationProps {
  userCode: string;
  applicationName: string;
  scopes: { scope: string; title: string; description: string }[];
  decide: (previous: Result, form: FormData) => Promise<Result>;
}

/** The second step of `/oauth/device`: the person checks what asks for access, then authorizes or denies it. */
export function DeviceConfirmation({ userCode, applicationName, scopes, decide }: DeviceConfirmationProps) {
  const [result, formAction, pending] = useActionState(decide, null);

  if (result?.ok) {
    return result.data.decision === "approved" ? (
      <Notice tone="success" title="Device successfully authorized">
        <p>You can return to your device: it will finish signing in by itself.</p>
      </Notice>
    ) : (
      <Notice tone="info" title="The device was denied access.">
        <p>The device cannot use your account. You can close this page.</p>
      </Notice>
    );
  }

  return (
    <div className="card stack oauth-card">
      {result && !result.ok ? <Notice tone="error">{result.message}</Notice> : null}
      <p>
        <strong>{applicationName}</strong> is asking to access your account from a device showing the code{" "}
        <code className="monospace">{userCode}</code>. Only continue if you started this on your device and the code
        matches.
      </p>
      <section aria-labelledby="device-scopes-heading">
        <h2 id="device-scopes-heading">Scopes associated with this request:</h2>
        <ScopeList scopes={scopes} />
      </section>
      <form action={formAction} className="form-actions">
        <input type="hidden" name="user_code" value={userCode} />
        <button type="submit" name="decision" value="approve" className="button" disabled={pending}>
          Authorize
        </button>
        <button type="submit" name="decision" value="deny" className="button button-secondary" disabled={pending}>
          Deny
        </button>
      </form>
    </div>
  );
}
