"use server";

import { signUpFormSchema } from "@/lib/auth/form-schemas";
import { sessionContext } from "@/lib/auth/session";
import { signUp } from "@/lib/auth/sign-up";
import { requestClientAddress } from "@/lib/http/client-address";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";

/** Creates an account for a visitor; the form then signs in with the same credentials. */
export async function signUpAction(input: unknown): Promise<ActionResult<{ username: string }>> {
  const ctx = await sessionContext();
  const parsed = parseActionInput(signUpFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  const { name, username, email, password } = parsed.data;
  try {
    const user = await signUp(ctx, { name, username, email, password, clientAddress: await requestClientAddress() });
    return actionSuccess({ username: user.username });
  } catch (error) {
    return toActionFailure(error);
  }
}
