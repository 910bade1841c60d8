import "server-only";
import type { Ctx } from "@/lib/context";
import type { UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError } from "@/lib/errors";
import { insertUser, type NewUser } from "@/lib/users/users";

export function isSignUpEnabled(): boolean {
  return env.SIGNUP_ENABLED;
}

/** A visitor creates their own account (unless the instance has sign-up turned off). */
export async function signUp(ctx: Ctx, input: Omit<NewUser, "isAdmin">): Promise<UserRow> {
  if (!isSignUpEnabled()) throw new ForbiddenError("Sign-up is disabled on this instance");
  return insertUser(ctx.db, { ...input, isAdmin: false });
}
