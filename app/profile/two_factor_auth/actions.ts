"use server";

import { confirmTwoFactorFormSchema, currentPasswordFormSchema } from "@/lib/auth/form-schemas";
import { requireSessionContext } from "@/lib/auth/session";
import { confirmTwoFactorEnrollment, disableTwoFactor, regenerateRecoveryCodes } from "@/lib/auth/two-factor";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";

const returnTo = "/profile/two_factor_auth";

/** Confirms enrollment with a code from the app; the answer carries the recovery codes, shown this once. */
export async function confirmTwoFactorAction(input: unknown): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(confirmTwoFactorFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    return actionSuccess({ recoveryCodes: await confirmTwoFactorEnrollment(ctx, parsed.data) });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function regenerateRecoveryCodesAction(input: unknown): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(currentPasswordFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    return actionSuccess({ recoveryCodes: await regenerateRecoveryCodes(ctx, parsed.data) });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function disableTwoFactorAction(input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(currentPasswordFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await disableTwoFactor(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
