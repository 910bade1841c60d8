"use server";

import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { NotFoundError } from "@/lib/errors";
import { requestClientAddress } from "@/lib/http/client-address";
import { decideDeviceAuthorization } from "@/lib/oauth/device";
import { OAuthError } from "@/lib/oauth/errors";
import { deviceDecisionSchema } from "@/lib/oauth/form-schemas";

export type DeviceDecisionResult = ActionResult<{ decision: "approved" | "denied" }> | null;

/** The Authorize / Deny buttons of `/oauth/device`; the device learns the answer at its next poll. */
export async function decideDeviceAction(_previous: DeviceDecisionResult, form: FormData): Promise<DeviceDecisionResult> {
  const ctx = await requireSessionContext("/oauth/device");
  const parsed = parseActionInput(deviceDecisionSchema, { user_code: form.get("user_code"), decision: form.get("decision") });
  if (!parsed.ok) return parsed.failure;
  const decision = parsed.data.decision === "approve" ? "approved" : "denied";
  try {
    await decideDeviceAuthorization(ctx, { userCode: parsed.data.user_code, clientAddress: await requestClientAddress() }, decision);
    return actionSuccess({ decision });
  } catch (error) {
    if (error instanceof NotFoundError) return { ok: false, message: "The user code is invalid or expired" };
    if (error instanceof OAuthError) return { ok: false, message: error.description };
    return toActionFailure(error);
  }
}
