"use server";

import { changePasswordFormSchema } from "@/lib/auth/form-schemas";
import { changePassword } from "@/lib/auth/passwords";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";

/** Changes the password; every session of the account ends, this one too, so the form signs out afterwards. */
export async function changePasswordAction(input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext("/profile/password/edit");
  const parsed = parseActionInput(changePasswordFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await changePassword(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
