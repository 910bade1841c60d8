import "server-only";
import { eq, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { UnauthorizedError } from "@/lib/errors";
import { confirmationRequiredOnSignIn } from "@/lib/users/confirmation-rules";

/**
 * The column change that ends every browser session signed in before it: sessions carry the version they were
 * signed in under, and only the current one is accepted. One statement, so concurrent changes cannot lose a raise.
 */
export const raisedSessionVersion = { sessionVersion: sql`${users.sessionVersion} + 1` };

/**
 * Whether a browser session of `user`, signed in under `sessionVersion`, may still act: the account is active, nothing
 * ended its sessions since (password change or reset, blocking, "sign out everywhere"), and it may still sign in
 * without confirming its address (as Devise re-checks an account on every request). Sessions from before versions
 * existed carry none: they count as version 1, the column's default.
 */
export function sessionStillValid(user: UserRow, sessionVersion: number | undefined, now: Date): boolean {
  return (
    user.state === "active" &&
    user.userType === "human" &&
    user.sessionVersion === (sessionVersion ?? 1) &&
    !confirmationRequiredOnSignIn(user, env.EMAIL_CONFIRMATION, now)
  );
}

/** "Sign out everywhere" on the profile: ends every browser session of the signed-in user, this one included. */
export async function signOutEverywhere(ctx: Ctx): Promise<void> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  await ctx.db.update(users).set(raisedSessionVersion).where(eq(users.id, user.id));
}
