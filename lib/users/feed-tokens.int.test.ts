import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import { users } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { feedReader, findUserByFeedToken, resetOwnFeedToken } from "./feed-tokens";

describe.each(testDatabases())("feed tokens on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("keeps only the digest of a reset token, which then identifies its owner", async () => {
    const user = await createTestUser(handle.db);
    const ctx = userContext(handle.db, user);
    const token = await resetOwnFeedToken(ctx);
    expect(token).toMatch(/^glft-[A-Za-z0-9_-]{43}$/);
    const [row] = await handle.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ feedTokenDigest: sha256Hex(token), feedTokenCreatedAt: ctx.now });
    expect(JSON.stringify(row)).not.toContain(token.slice(5));
    expect((await findUserByFeedToken(handle.db, token))?.id).toBe(user.id);
    expect(await feedReader(handle.db, token)).toMatchObject({ kind: "user", user: { id: user.id }, scopes: new Set(["read_api"]) });
  });

  it("forgets the previous token when reset again", async () => {
    const user = await createTestUser(handle.db);
    const ctx = userContext(handle.db, user);
    const first = await resetOwnFeedToken(ctx);
    const second = await resetOwnFeedToken(ctx);
    expect(second).not.toBe(first);
    expect(await findUserByFeedToken(handle.db, first)).toBeUndefined();
    expect(await feedReader(handle.db, first)).toEqual({ kind: "anonymous" });
    expect((await findUserByFeedToken(handle.db, second))?.id).toBe(user.id);
  });

  it("reads unknown, malformed and missing tokens as anonymous, and a blocked owner's token as nobody's", async () => {
    const user = await createTestUser(handle.db);
    const token = await resetOwnFeedToken(userContext(handle.db, user));
    for (const presented of [null, "", "glft-unknown", `${token}x`, token.slice(5), sha256Hex(token)]) {
      expect(await feedReader(handle.db, presented)).toEqual({ kind: "anonymous" });
    }
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    expect(await feedReader(handle.db, token)).toEqual({ kind: "anonymous" });
  });

  it("gives anonymous visitors no token", async () => {
    await expect(resetOwnFeedToken(anonymousTestContext(handle.db))).rejects.toThrow(UnauthorizedError);
  });
});
