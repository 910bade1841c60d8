import "server-only";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { hashPassword } from "@/lib/auth/password";
import type { Executor } from "@/lib/db";
import { oncePerDatabase } from "@/lib/db/once-per-database";
import { users, type UserRow } from "@/lib/db/schema";

/**
 * GitLab's "Ghost User": the internal user that holds the issues and comments of users deleted without
 * `hard_delete`, so a project's history keeps them. Created on first need as `ghost` (`ghost1`, … when a person has
 * that name), found again by its type, and then remembered per database handle: it is never deleted.
 */
export const getGhostUser = oncePerDatabase(findOrCreateGhost);

async function findOrCreateGhost(db: Executor): Promise<UserRow> {
  const existing = await findGhost(db);
  if (existing) return existing;
  // Internal users never sign in: sign-in refuses every account that is not a person's, and nobody knows this password.
  const passwordHash = await hashPassword(randomBytes(32).toString("hex"));
  for (let suffix = 0; suffix < 100; suffix += 1) {
    const username = suffix === 0 ? "ghost" : `ghost${suffix}`;
    const [created] = await db
      .insert(users)
      .values({
        username,
        email: `${username}@noreply.invalid`,
        name: "Ghost User",
        bio: "This is a Ghost User: it holds the issues and comments of users who have been deleted. It cannot be removed.",
        passwordHash,
        userType: "ghost",
        confirmedAt: new Date(),
      })
      .onConflictDoNothing()
      .returning();
    if (created) return created;
    // Another process made the ghost meanwhile, or a person has this name: look again, then try the next name.
    const raced = await findGhost(db);
    if (raced) return raced;
  }
  throw new Error("no username is free for the ghost user");
}

async function findGhost(db: Executor): Promise<UserRow | undefined> {
  const [ghost] = await db.select().from(users).where(eq(users.userType, "ghost")).orderBy(users.id).limit(1);
  return ghost;
}
