"use server";

import type { ActionResult } from "@/lib/forms/action-result";
import { runActionOnRecord } from "@/lib/forms/run-action";
import { deleteApplicationAsAdmin, updateApplicationSettings } from "@/lib/oauth/applications";

const returnTo = "/admin/applications";

/** Marks an application trusted: it is verified, and people are no longer asked to approve it. */
export async function trustApplicationAction(applicationId: unknown): Promise<ActionResult> {
  return runActionOnRecord(returnTo, applicationId, (ctx, id) => updateApplicationSettings(ctx, id, { trusted: true }));
}

export async function distrustApplicationAction(applicationId: unknown): Promise<ActionResult> {
  return runActionOnRecord(returnTo, applicationId, (ctx, id) => updateApplicationSettings(ctx, id, { trusted: false }));
}

/** Deletes an application with its grants and tokens. */
export async function deleteApplicationAdminAction(applicationId: unknown): Promise<ActionResult> {
  return runActionOnRecord(returnTo, applicationId, deleteApplicationAsAdmin);
}
