"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import type { Ctx } from "@/lib/context";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { blockUser, confirmUserAsAdmin, unblockUser } from "@/lib/users/admin";

const userIdSchema = z.number().int().positive();

async function runAdminAction(userId: unknown, verb: (ctx: Ctx, userId: number) => Promise<unknown>): Promise<ActionResult> {
  const ctx = await requireSessionContext("/admin/users");
  const parsed = parseActionInput(userIdSchema, userId);
  if (!parsed.ok) return parsed.failure;
  try {
    await verb(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** GitLab's admin "Confirm user". */
export async function confirmUserAction(userId: unknown): Promise<ActionResult> {
  return runAdminAction(userId, confirmUserAsAdmin);
}

/** GitLab's admin "Block": no more sign-in, tokens refused, every browser session ended. */
export async function blockUserAction(userId: unknown): Promise<ActionResult> {
  return runAdminAction(userId, blockUser);
}

export async function unblockUserAction(userId: unknown): Promise<ActionResult> {
  return runAdminAction(userId, unblockUser);
}
