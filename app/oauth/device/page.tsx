import type { Metadata } from "next";
import { DeviceConfirmation } from "@/components/oauth/device-confirmation";
import { Notice } from "@/components/ui/notice";
import { requireSessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { requestClientAddress } from "@/lib/http/client-address";
import { deviceAuthorizer, findPendingDeviceAuthorization, tooManyCodesMessage, type PendingDeviceAuthorization } from "@/lib/oauth/device";
import { OAuthError } from "@/lib/oauth/errors";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { isKnownScope } from "@/lib/api/scopes";
import { scopeDescriptions } from "@/lib/oauth/scopes";
import { decideDeviceAction } from "./actions";

export const metadata: Metadata = { title: "Authorize a device", referrer: "no-referrer" };

interface DevicePageProps {
  searchParams: Promise<{ user_code?: string | string[] }>;
}

/** RFC 8628's verification URI: the person types the code their device shows (or follows its link with it filled in). */
export default async function DevicePage({ searchParams }: DevicePageProps) {
  const { user_code: given } = await searchParams;
  const userCode = typeof given === "string" ? given.trim() : "";
  const ctx = await requireSessionContext(`/oauth/device${userCode ? `?user_code=${encodeURIComponent(userCode)}` : ""}`);

  let pending: PendingDeviceAuthorization | null = null;
  let refusal: string | null = null;
  try {
    deviceAuthorizer(ctx);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return (
      <div className="narrow consent">
        <h1>Authorize a device</h1>
        <Notice tone="error">{error.description}</Notice>
      </div>
    );
  }
  if (userCode) {
    try {
      pending = await findPendingDeviceAuthorization(ctx, { userCode, clientAddress: await requestClientAddress() });
    } catch (error) {
      if (error instanceof NotFoundError) refusal = "The user code is invalid or expired";
      else if (error instanceof RateLimitExceeded) refusal = tooManyCodesMessage(error);
      else throw error;
    }
  }

  return (
    <div className="narrow consent">
      <h1>Authorize a device</h1>
      {pending ? (
        <DeviceConfirmation
          userCode={pending.userCode}
          applicationName={pending.application.name}
          scopes={pending.scopes.map((scope) => ({
            scope,
            ...(isKnownScope(scope) ? scopeDescriptions[scope] : { title: scope, description: "" }),
          }))}
          decide={decideDeviceAction}
        />
      ) : (
        <form method="get" action="/oauth/device" className="card stack">
          {refusal ? <Notice tone="error">{refusal}</Notice> : null}
          <div className="field">
            <label htmlFor="user_code">User code</label>
            <input
              id="user_code"
              name="user_code"
              type="text"
              defaultValue={userCode}
              // The one thing to do on this page; whoever arrives here came to type the code.
              autoFocus
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              required
              aria-describedby="user_code-hint"
              aria-invalid={refusal !== null || undefined}
              className="monospace"
            />
            <p className="field-hint" id="user_code-hint">
              Enter the code shown on your device, for example WDJB-MJHT.
            </p>
          </div>
          <div className="form-actions">
            <button type="submit" className="button">
              Continue
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
