"use server";

import { signOutEverywhere } from "@/lib/auth/sessions";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { toActionFailure } from "@/lib/forms/run-action";

/** Ends every browser session of the signed-in user, this one too. */
export async function signOutEverywhereAction(): Promise<ActionResult> {
  const ctx = await requireSessionContext("/profile");
  try {
    await signOutEverywhere(ctx);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
