import "server-only";
import { eq } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { users } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import type { NotificationSettingsForm } from "./form-schemas";

export type NotificationSettings = NotificationSettingsForm;

function signedInUser(ctx: Ctx) {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  return user;
}

/** The signed-in user's notification settings, as stored (not as the session's copy of the account has them). */
export async function getOwnNotificationSettings(ctx: Ctx): Promise<NotificationSettings> {
  const user = signedInUser(ctx);
  const [row] = await ctx.db.select({ alertEmails: users.alertEmails }).from(users).where(eq(users.id, user.id));
  if (!row) throw new UnauthorizedError();
  return row;
}

/** Changes the signed-in user's notification settings; those not given keep their value. */
export async function updateOwnNotificationSettings(ctx: Ctx, changes: Partial<NotificationSettings>): Promise<NotificationSettings> {
  const user = signedInUser(ctx);
  const [row] = await ctx.db
    .update(users)
    .set({ ...(changes.alertEmails !== undefined ? { alertEmails: changes.alertEmails } : {}), updatedAt: ctx.now })
    .where(eq(users.id, user.id))
    .returning({ alertEmails: users.alertEmails });
  forgetTokenChecks(ctx.db, `user:${user.id}`);
  if (!row) throw new UnauthorizedError();
  return row;
}
