"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import type { Ctx } from "@/lib/context";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { deleteApplicationAsAdmin, updateApplicationSettings } from "@/lib/oauth/applications";

const applicationIdSchema = z.number().int().positive();

async function runAdminAction(applicationId: unknown, verb: (ctx: Ctx, id: number) => Promise<unknown>): Promise<ActionResult> {
  const ctx = await requireSessionContext("/admin/applications");
  const parsed = parseActionInput(applicationIdSchema, applicationId);
  if (!parsed.ok) return parsed.failure;
  try {
    await verb(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** Marks an application trusted: it is verified, and people are no longer asked to approve it. */
export async function trustApplicationAction(applicationId: unknown): Promise<ActionResult> {
  return runAdminAction(applicationId, (ctx, id) => updateApplicationSettings(ctx, id, { trusted: true }));
}

export async function distrustApplicationAction(applicationId: unknown): Promise<ActionResult> {
  return runAdminAction(applicationId, (ctx, id) => updateApplicationSettings(ctx, id, { trusted: false }));
}

/** Deletes an application with its grants and tokens. */
export async function deleteApplicationAdminAction(applicationId: unknown): Promise<ActionResult> {
  return runAdminAction(applicationId, deleteApplicationAsAdmin);
}
