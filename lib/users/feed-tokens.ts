import "server-only";
import { eq } from "drizzle-orm";
import { actingUser, type Actor, type Ctx } from "@/lib/context";
import { constantTimeEqual, generateSecret, sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { users, type UserRow } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";

/** GitLab's prefix for feed tokens, so people and secret scanners recognise one. */
const feedTokenPrefix = "glft-";

/**
 * Gives the signed-in user a new feed token; the previous one stops working at once. The token is answered only here:
 * the database keeps its digest.
 */
export async function resetOwnFeedToken(ctx: Ctx): Promise<string> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const token = generateSecret(feedTokenPrefix);
  await ctx.db.update(users).set({ feedTokenDigest: sha256Hex(token), feedTokenCreatedAt: ctx.now }).where(eq(users.id, user.id));
  return token;
}

/** The active person a feed token belongs to; blocked accounts and bots read no feeds. */
export async function findUserByFeedToken(db: Database, token: string): Promise<UserRow | undefined> {
  if (!token.startsWith(feedTokenPrefix)) return undefined;
  const digest = sha256Hex(token);
  const [user] = await db.select().from(users).where(eq(users.feedTokenDigest, digest));
  if (!user?.feedTokenDigest || !constantTimeEqual(user.feedTokenDigest, digest)) return undefined;
  return user.state === "active" && user.userType === "human" ? user : undefined;
}

/**
 * Who reads a feed: the feed token's owner, or anonymous for a missing or unknown token (as GitLab treats a bad feed
 * token), so a feed then shows only what anybody may see. Feed readers only read, whatever the token's owner may do.
 */
export async function feedReader(db: Database, token: string | null): Promise<Actor> {
  const user = token ? await findUserByFeedToken(db, token) : undefined;
  return user ? { kind: "user", user, scopes: new Set(["read_api"]) } : { kind: "anonymous" };
}
