"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, runActionOnRecord, toActionFailure } from "@/lib/forms/run-action";
import { createOwnApplication, deleteApplication, renewApplicationSecret, revokeApplicationAuthorization } from "@/lib/oauth/applications";
import { applicationFormSchema } from "@/lib/oauth/form-schemas";

const returnTo = "/profile/applications";
const idSchema = z.number().int().positive();

export interface CreatedApplication {
  name: string;
  uid: string;
  secret: string;
}

/** Registers an application for the signed-in user; the answer carries the secret, which is never shown again. */
export async function createApplicationAction(input: unknown): Promise<ActionResult<CreatedApplication>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(applicationFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    const { application, secret } = await createOwnApplication(ctx, parsed.data);
    return actionSuccess({ name: application.name, uid: application.uid, secret });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function renewApplicationSecretAction(id: unknown): Promise<ActionResult<{ secret: string }>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(idSchema, id);
  if (!parsed.ok) return parsed.failure;
  try {
    const { secret } = await renewApplicationSecret(ctx, parsed.data);
    return actionSuccess({ secret });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function deleteApplicationAction(id: unknown): Promise<ActionResult> {
  return runActionOnRecord(returnTo, id, deleteApplication);
}

/** Revokes every token and grant the signed-in user gave an application. */
export async function revokeAuthorizedApplicationAction(applicationId: unknown): Promise<ActionResult> {
  return runActionOnRecord(returnTo, applicationId, revokeApplicationAuthorization);
}
