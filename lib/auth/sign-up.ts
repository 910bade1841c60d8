import "server-only";
import type { Ctx } from "@/lib/context";
import type { UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError } from "@/lib/errors";
import { throttleProtectedPath } from "@/lib/rate-limits/rate-limits";
import { createAccount, type NewUser } from "@/lib/users/users";

export function isSignUpEnabled(): boolean {
  return env.SIGNUP_ENABLED;
}

/**
 * A visitor creates their own account (unless the instance has sign-up turned off). Its address is unconfirmed until
 * the link mailed to it is opened (unless EMAIL_CONFIRMATION=off): anyone can type any address here.
 */
export async function signUp(ctx: Ctx, input: Omit<NewUser, "isAdmin"> & { clientAddress?: string | null }): Promise<UserRow> {
  if (!isSignUpEnabled()) throw new ForbiddenError("Sign-up is disabled on this instance");
  await throttleProtectedPath(input.clientAddress ?? null);
  const { clientAddress: _, ...account } = input;
  return createAccount(ctx.db, { ...account, isAdmin: false }, ctx.now, { skipConfirmation: false });
}
