"use server";

import type { ActionResult } from "@/lib/forms/action-result";
import { runActionOnRecord } from "@/lib/forms/run-action";
import { blockUser, confirmUserAsAdmin, unblockUser } from "@/lib/users/admin";

/** GitLab's admin "Confirm user". */
export async function confirmUserAction(userId: unknown): Promise<ActionResult> {
  return runActionOnRecord("/admin/users", userId, confirmUserAsAdmin);
}

/** GitLab's admin "Block": no more sign-in, tokens refused, every browser session ended. */
export async function blockUserAction(userId: unknown): Promise<ActionResult> {
  return runActionOnRecord("/admin/users", userId, blockUser);
}

export async function unblockUserAction(userId: unknown): Promise<ActionResult> {
  return runActionOnRecord("/admin/users", userId, unblockUser);
}
