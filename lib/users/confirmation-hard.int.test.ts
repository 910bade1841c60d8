import { afterEach, describe, expect, it, vi } from "vitest";

// The configuration is read once, when lib/env is first imported.
vi.hoisted(() => {
  process.env.EMAIL_CONFIRMATION = "hard";
});

import { eq } from "drizzle-orm";
import { sessionStillValid } from "@/lib/auth/sessions";
import { verifySignIn } from "@/lib/auth/sign-in";
import { signUp } from "@/lib/auth/sign-up";
import { users } from "@/lib/db/schema";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, testPassword, uniqueSuffix } from "@/lib/testing/fixtures";
import { captureMail, linkSecret } from "@/lib/testing/mail";
import { invalidGrantBody, token } from "@/lib/testing/oauth";
import { bootstrapRoot } from "./bootstrap";
import { confirmEmail } from "./confirmation";

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("email confirmation set to hard on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("refuses sign-in, sessions and the password grant until the address is confirmed, then allows them", async () => {
    const sent = captureMail();
    const username = `hard_${uniqueSuffix()}`;
    const now = new Date();
    const user = await signUp({ ...anonymousTestContext(handle.db), now }, { username, email: `${username}@example.com`, name: "Hard", password: testPassword });
    const login = { login: username, password: testPassword };
    expect(await verifySignIn(handle.db, login, now)).toEqual({ ok: false, reason: "unconfirmed" });
    expect(sessionStillValid(user, 1, now)).toBe(false);
    await expect(token(handle.db, { grant_type: "password", username, password: testPassword })).rejects.toMatchObject({
      status: 400,
      error: invalidGrantBody.error,
    });

    const confirmationToken = linkSecret(sent[0], "confirmation_token");
    expect(await confirmEmail({ ...anonymousTestContext(handle.db), now }, confirmationToken)).toBe("confirmed");
    expect(await verifySignIn(handle.db, login, now)).toMatchObject({ ok: true });
    const [confirmed] = await handle.db.select().from(users).where(eq(users.id, user.id));
    expect(sessionStillValid(confirmed!, 1, now)).toBe(true);
    expect((await token(handle.db, { grant_type: "password", username, password: testPassword })).scope).toBe("api");
  });

  it("creates root confirmed, so the administrator can always sign in", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    await bootstrapRoot(handle.db, new Date());
    const [root] = await handle.db.select().from(users).where(eq(users.username, "root"));
    expect(root!.confirmedAt).not.toBeNull();
  });
});
