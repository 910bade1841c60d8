"use server";

import { signOutEverywhere } from "@/lib/auth/sessions";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { toActionFailure } from "@/lib/forms/run-action";
import { dashboardFeedUrl } from "@/lib/events/feeds";
import { resetOwnFeedToken } from "@/lib/users/feed-tokens";

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

/** A new feed token for the signed-in user, answered with the dashboard feed's link; the previous token stops working. */
export async function resetFeedTokenAction(): Promise<ActionResult<{ token: string; feedUrl: string }>> {
  const ctx = await requireSessionContext("/profile");
  try {
    const token = await resetOwnFeedToken(ctx);
    return actionSuccess({ token, feedUrl: dashboardFeedUrl(token) });
  } catch (error) {
    return toActionFailure(error);
  }
}
