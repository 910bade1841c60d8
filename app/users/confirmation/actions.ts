"use server";

import { emailRequestFormSchema } from "@/lib/auth/form-schemas";
import { requireSessionContext } from "@/lib/auth/session";
import { anonymousContext } from "@/lib/context";
import { requestClientAddress } from "@/lib/http/client-address";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { resendConfirmationInstructions, resendOwnConfirmationInstructions } from "@/lib/users/confirmation";

/** `/users/confirmation/new`: answers the same whatever the address, so the form reveals none. */
export async function resendConfirmationAction(input: unknown): Promise<ActionResult> {
  const parsed = parseActionInput(emailRequestFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await resendConfirmationInstructions(await anonymousContext(), { email: parsed.data.email, clientAddress: await requestClientAddress() });
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** The notice a signed-in unconfirmed user sees on every page. */
export async function resendOwnConfirmationAction(): Promise<ActionResult> {
  const ctx = await requireSessionContext();
  try {
    await resendOwnConfirmationInstructions(ctx);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
