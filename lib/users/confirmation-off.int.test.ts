import { afterEach, describe, expect, it, vi } from "vitest";

// The configuration is read once, when lib/env is first imported.
vi.hoisted(() => {
  process.env.EMAIL_CONFIRMATION = "off";
});

import { verifySignIn } from "@/lib/auth/sign-in";
import { signUp } from "@/lib/auth/sign-up";
import { logMailer } from "@/lib/mail/mailer";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createUserAsAdmin } from "./users";

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("email confirmation set to off on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("confirms new accounts at creation and mails nothing", async () => {
    const send = vi.spyOn(logMailer, "send");
    const now = new Date();
    const ctx = { ...anonymousTestContext(handle.db), now };
    const username = `off_${uniqueSuffix()}`;
    const user = await signUp(ctx, { username, email: `${username}@example.com`, name: "Off", password: testPassword });
    expect(user).toMatchObject({ confirmedAt: now, confirmationTokenDigest: null, confirmationSentAt: null });
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const made = await createUserAsAdmin({ ...userContext(handle.db, admin), now }, { username: `${username}_b`, email: `${username}_b@example.com`, name: "B", password: testPassword });
    expect(made.confirmedAt).toEqual(now);
    expect(send).not.toHaveBeenCalled();
    expect(await verifySignIn(handle.db, { login: username, password: testPassword }, now)).toMatchObject({ ok: true });
  });

  it("lets accounts left unconfirmed (from before the setting changed) sign in", async () => {
    const user = await createTestUser(handle.db, { confirmed: false });
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, new Date())).toMatchObject({ ok: true });
  });
});
