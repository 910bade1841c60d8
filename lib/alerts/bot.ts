import "server-only";
import { randomBytes } from "node:crypto";
import type { Executor } from "@/lib/db";
import { users, type UserRow } from "@/lib/db/schema";
import { eq } from "drizzle-orm";
import { hashPassword } from "@/lib/auth/password";

export const alertBotUsername = "alert-bot";

const knownBots = new WeakMap<object, Promise<UserRow>>();

/**
 * The user that authors what alerts do by themselves (system notes, incidents); created on first need and then
 * remembered per database handle, as it never changes.
 */
export function getAlertBot(db: Executor): Promise<UserRow> {
  let bot = knownBots.get(db);
  if (!bot) {
    bot = findOrCreateAlertBot(db);
    bot.catch(() => knownBots.delete(db));
    knownBots.set(db, bot);
  }
  return bot;
}

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
