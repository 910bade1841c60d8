import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { users, type UserRow } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { sessionStillValid, signOutEverywhere } from "./sessions";

describe.each(testDatabases())("browser sessions on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;

  it("starts at version 1, which sessions from before versions existed also count as", async () => {
    const user = await createTestUser(handle.db);
    expect(user.sessionVersion).toBe(1);
    expect(sessionStillValid(user, 1, new Date())).toBe(true);
    expect(sessionStillValid(user, undefined, new Date())).toBe(true);
    expect(sessionStillValid(user, 2, new Date())).toBe(false);
  });

  it("sign out everywhere ends every session, including the one that asked, and no other user's", async () => {
    const user = await createTestUser(handle.db);
    const other = await createTestUser(handle.db);
    await signOutEverywhere(userContext(handle.db, user));
    const stored = await reload(user);
    expect(stored.sessionVersion).toBe(2);
    expect(sessionStillValid(stored, 1, new Date())).toBe(false);
    expect(sessionStillValid(stored, 2, new Date())).toBe(true);
    expect((await reload(other)).sessionVersion).toBe(1);
    // Concurrent requests each end the sessions: none of the raises is lost.
    await Promise.all([signOutEverywhere(userContext(handle.db, stored)), signOutEverywhere(userContext(handle.db, stored))]);
    expect((await reload(user)).sessionVersion).toBe(4);
    await expect(signOutEverywhere(anonymousTestContext(handle.db))).rejects.toThrow(UnauthorizedError);
  });

  it("a blocked account's session is over whatever its version", async () => {
    const user = await createTestUser(handle.db);
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    expect(sessionStillValid(await reload(user), 1, new Date())).toBe(false);
  });
});
