import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { users, type UserRow } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { env } from "@/lib/env";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, testPassword } from "@/lib/testing/fixtures";
import { verifySignIn } from "./sign-in";
import { generateTotpSecret, totpCodeAt } from "./totp";

const now = new Date("2030-06-15T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);

describe.each(testDatabases())("sign-in on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;

  async function withTwoFactor(user: UserRow, recoveryCodes: string[] = []) {
    const secret = generateTotpSecret();
    await handle.db
      .update(users)
      .set({ otpSecret: secret, otpEnabledAt: now, otpRecoveryCodeDigests: recoveryCodes.map((code) => sha256Hex(code)) })
      .where(eq(users.id, user.id));
    return secret;
  }

  it("the lockout threshold defaults to 10 attempts", () => {
    expect(env.SIGN_IN_MAX_ATTEMPTS).toBe(10);
  });

  it("signs in by username or email, in any case, and records the time", async () => {
    const user = await createTestUser(handle.db);
    const byName = await verifySignIn(handle.db, { login: ` ${user.username.toUpperCase()} `, password: testPassword }, now);
    expect(byName).toMatchObject({ ok: true, user: { id: user.id } });
    const byEmail = await verifySignIn(handle.db, { login: user.email.toUpperCase(), password: testPassword }, later(1000));
    expect(byEmail).toMatchObject({ ok: true, user: { id: user.id, lastSignInAt: later(1000) } });
  });

  it("answers the same for an unknown login and a wrong password, and counts wrong passwords", async () => {
    const user = await createTestUser(handle.db);
    expect(await verifySignIn(handle.db, { login: "no-such-user", password: testPassword }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    expect(await verifySignIn(handle.db, { login: user.username, password: "wrong password" }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    expect((await reload(user)).failedSignInAttempts).toBe(1);
    // A success resets the count.
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).ok).toBe(true);
    expect((await reload(user)).failedSignInAttempts).toBe(0);
  });

  it("locks the account after SIGN_IN_MAX_ATTEMPTS failures, even for the right password, until the lock period ends", async () => {
    const user = await createTestUser(handle.db);
    for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS - 1; attempt += 1) {
      await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now);
    }
    expect((await reload(user)).lockedUntil).toBeNull();
    expect((await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now)).ok).toBe(false);
    const locked = await reload(user);
    expect(locked.lockedUntil).toEqual(later(env.SIGN_IN_LOCK_MINUTES * 60_000));

    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, later(1000))).toEqual({ ok: false, reason: "locked" });
    const justBefore = later(env.SIGN_IN_LOCK_MINUTES * 60_000 - 1);
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, justBefore)).toEqual({ ok: false, reason: "locked" });

    const afterLock = later(env.SIGN_IN_LOCK_MINUTES * 60_000 + 1);
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, afterLock)).toMatchObject({ ok: true });
    expect(await reload(user)).toMatchObject({ failedSignInAttempts: 0, lockedUntil: null });
  });

  it("refuses a blocked user with the right password", async () => {
    const user = await createTestUser(handle.db);
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).toEqual({ ok: false, reason: "blocked" });
    expect(await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
  });

  it("with two-factor authentication: code required, wrong code counted, right code accepted once", async () => {
    const user = await createTestUser(handle.db);
    const secret = await withTwoFactor(user);
    const login = { login: user.username, password: testPassword };
    expect(await verifySignIn(handle.db, login, now)).toEqual({ ok: false, reason: "otp_required" });
    expect(await verifySignIn(handle.db, { ...login, otp: "  " }, now)).toEqual({ ok: false, reason: "otp_required" });
    expect((await reload(user)).failedSignInAttempts).toBe(0);

    const code = totpCodeAt(secret, now);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await verifySignIn(handle.db, { ...login, otp: wrong }, now)).toEqual({ ok: false, reason: "otp_invalid" });
    expect((await reload(user)).failedSignInAttempts).toBe(1);
    // A code is never asked for before the password is right.
    expect(await verifySignIn(handle.db, { ...login, password: "wrong", otp: code }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });

    expect(await verifySignIn(handle.db, { ...login, otp: ` ${code} ` }, now)).toMatchObject({ ok: true, user: { id: user.id } });
    // Replaying the same code, or an older one, is refused.
    expect(await verifySignIn(handle.db, { ...login, otp: code }, later(5_000))).toEqual({ ok: false, reason: "otp_invalid" });
    expect(await verifySignIn(handle.db, { ...login, otp: totpCodeAt(secret, later(-30_000)) }, now)).toEqual({
      ok: false,
      reason: "otp_invalid",
    });
    // The next step's code works.
    expect(await verifySignIn(handle.db, { ...login, otp: totpCodeAt(secret, later(30_000)) }, later(30_000))).toMatchObject({ ok: true });
  });

  it("a recovery code works exactly once, in any case and spacing", async () => {
    const user = await createTestUser(handle.db);
    await withTwoFactor(user, ["0123456789abcdef", "fedcba9876543210"]);
    const login = { login: user.username, password: testPassword };
    expect(await verifySignIn(handle.db, { ...login, otp: "0123 4567 89AB CDEF" }, now)).toMatchObject({ ok: true });
    expect(await verifySignIn(handle.db, { ...login, otp: "0123456789abcdef" }, now)).toEqual({ ok: false, reason: "otp_invalid" });
    expect((await reload(user)).otpRecoveryCodeDigests).toEqual([sha256Hex("fedcba9876543210")]);
    expect(await verifySignIn(handle.db, { ...login, otp: "fedcba9876543210" }, now)).toMatchObject({ ok: true });
  });

  it("two-factor failures lock the account too", async () => {
    const user = await createTestUser(handle.db);
    await withTwoFactor(user);
    for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt += 1) {
      await verifySignIn(handle.db, { login: user.username, password: testPassword, otp: "not-a-code" }, now);
    }
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword, otp: "x" }, now)).toEqual({
      ok: false,
      reason: "locked",
    });
  });
});
