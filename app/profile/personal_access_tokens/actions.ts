"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { personalAccessTokenFormSchema } from "@/lib/users/form-schemas";
import { createOwnPersonalAccessToken, revokeOwnPersonalAccessToken } from "@/lib/users/personal-access-tokens";

const returnTo = "/profile/personal_access_tokens";

/** Creates a token for the signed-in user; the answer carries the token value, which is never shown again. */
export async function createPersonalAccessTokenAction(input: unknown): Promise<ActionResult<{ name: string; token: string }>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(personalAccessTokenFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  const { name, scopes, expiresAt } = parsed.data;
  try {
    const issued = await createOwnPersonalAccessToken(ctx, { name, scopes, expiresAt: expiresAt || null });
    return actionSuccess({ name: issued.record.name, token: issued.token });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function revokePersonalAccessTokenAction(tokenId: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(z.number().int().positive(), tokenId);
  if (!parsed.ok) return parsed.failure;
  try {
    await revokeOwnPersonalAccessToken(ctx, parsed.data);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
