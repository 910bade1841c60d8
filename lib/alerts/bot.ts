import "server-only";
import { randomBytes } from "node:crypto";
import type { Executor } from "@/lib/db";
import { users, type UserRow } from "@/lib/db/schema";
import { eq } from "drizzle-orm";
import { hashPassword } from "@/lib/auth/password";
import { oncePerDatabase } from "@/lib/db/once-per-database";

export const alertBotUsername = "alert-bot";

/**
 * The user that authors what alerts do by themselves (system notes, incidents); created on first need and then
 * remembered per database handle, as it never changes.
 */
export const getAlertBot = oncePerDatabase(findOrCreateAlertBot);

async function findOrCreateAlertBot(db: Executor): Promise<UserRow> {
  const [existing] = await db.select().from(users).where(eq(users.username, alertBotUsername));
  if (existing) return existing;
  const [created] = await db
    .insert(users)
    .values({
      username: alertBotUsername,
      email: "alert-bot@noreply.invalid",
      name: "Alert Bot",
      // Bots never sign in: sign-in refuses every non-human account, and nobody knows this password.
      passwordHash: await hashPassword(randomBytes(32).toString("hex")),
      userType: "alert_bot",
    })
    .onConflictDoNothing()
    .returning();
  if (created) return created;
  const [raced] = await db.select().from(users).where(eq(users.username, alertBotUsername));
  if (!raced) throw new Error("the alert bot could not be created");
  return raced;
}
