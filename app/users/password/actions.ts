"use server";

import { z } from "zod";
import { emailRequestFormSchema, resetPasswordFormSchema } from "@/lib/auth/form-schemas";
import { requestPasswordReset, resetPassword } from "@/lib/auth/passwords";
import { anonymousContext } from "@/lib/context";
import { requestClientAddress } from "@/lib/http/client-address";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";

/** `/users/password/new`: answers the same whatever the address, so the form reveals none. */
export async function requestPasswordResetAction(input: unknown): Promise<ActionResult> {
  const parsed = parseActionInput(emailRequestFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await requestPasswordReset(await anonymousContext(), { email: parsed.data.email, clientAddress: await requestClientAddress() });
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** `/users/password/edit`: the page binds the link's token; the form gives the new password twice. */
export async function resetPasswordAction(token: unknown, input: unknown): Promise<ActionResult> {
  const link = parseActionInput(z.string().min(1).max(200), token);
  if (!link.ok) return link.failure;
  const parsed = parseActionInput(resetPasswordFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await resetPassword(await anonymousContext(), { token: link.data, ...parsed.data });
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
