import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { users, type UserRow } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { env } from "@/lib/env";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { getRateLimits, RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { createTestUser, testPassword, uniqueSuffix } from "@/lib/testing/fixtures";
import { accountThrottleKey, verifySignIn } from "./sign-in";
import { generateTotpSecret, totpCodeAt } from "./totp";

const now = new Date("2030-06-15T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);

/** The lock on a login, as the throttle keeps it; fails the test when there is none. */
async function lockOf(login: string): Promise<RateLimitExceeded> {
  try {
    await (await getRateLimits()).checkAttempts("failedSignInsPerAccount", accountThrottleKey(login));
  } catch (error) {
    if (error instanceof RateLimitExceeded) return error;
    throw error;
  }
  throw new Error(`${login} is not locked`);
}

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

  it("answers the same for an unknown login and a wrong password; a success starts the count of failures again", async () => {
    const user = await createTestUser(handle.db);
    expect(await verifySignIn(handle.db, { login: `nobody_${uniqueSuffix()}`, password: testPassword }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    expect(await verifySignIn(handle.db, { login: user.username, password: "wrong password" }, now)).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    for (let attempt = 1; attempt < env.SIGN_IN_MAX_ATTEMPTS - 1; attempt += 1) {
      await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now);
    }
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).ok).toBe(true);
    // Had the success not reset the count, the next failure would lock the account.
    await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now);
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).ok).toBe(true);
  });

  it("locks the account for SIGN_IN_LOCK_MINUTES after SIGN_IN_MAX_ATTEMPTS failures, even for the right password", async () => {
    const user = await createTestUser(handle.db);
    for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS - 1; attempt += 1) {
      await verifySignIn(handle.db, { login: user.username, password: "wrong" }, now);
    }
    expect((await verifySignIn(handle.db, { login: user.email, password: testPassword }, now)).ok).toBe(true);
    for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt += 1) {
      await verifySignIn(handle.db, { login: user.username.toUpperCase(), password: "wrong" }, now);
    }
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).toEqual({ ok: false, reason: "locked" });
    const lock = await lockOf(user.username);
    expect(lock.throttle.name).toBe("account_lock");
    expect(lock.retryAfterSeconds()).toBeGreaterThan(env.SIGN_IN_LOCK_MINUTES * 60 - 5);
    expect(lock.retryAfterSeconds()).toBeLessThanOrEqual(env.SIGN_IN_LOCK_MINUTES * 60);
  });

  it("locks unknown logins like real ones, so the lock tells nothing about which accounts exist", async () => {
    const login = `nobody_${uniqueSuffix()}`;
    for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt += 1) {
      expect(await verifySignIn(handle.db, { login, password: "guess" }, now)).toEqual({ ok: false, reason: "invalid_credentials" });
    }
    expect(await verifySignIn(handle.db, { login, password: "guess" }, now)).toEqual({ ok: false, reason: "locked" });
  });

  it("refuses an address over THROTTLE_FAILED_SIGN_INS_PER_IP failures, whichever accounts it tries, and no other", async () => {
    const attacker = `198.51.100.${uniqueSuffix()}`;
    const victim = await createTestUser(handle.db);
    for (let attempt = 0; attempt < env.THROTTLE_FAILED_SIGN_INS_PER_IP; attempt += 1) {
      const login = attempt === 0 ? victim.username : `guess_${uniqueSuffix()}`;
      expect((await verifySignIn(handle.db, { login, password: "guess", clientAddress: attacker }, now)).ok).toBe(false);
    }
    const refused = await verifySignIn(handle.db, { login: victim.username, password: testPassword, clientAddress: attacker }, now).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RateLimitExceeded);
    expect((refused as RateLimitExceeded).throttle).toEqual({
      name: "throttle_failed_sign_ins",
      limit: env.THROTTLE_FAILED_SIGN_INS_PER_IP,
      periodSeconds: env.THROTTLE_FAILED_SIGN_INS_PERIOD_SECONDS,
    });
    // The account itself is not locked: from elsewhere its owner signs in.
    const elsewhere = await verifySignIn(handle.db, { login: victim.username, password: testPassword, clientAddress: `${attacker}-b` }, now);
    expect(elsewhere).toMatchObject({ ok: true, user: { id: victim.id } });
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

    const code = totpCodeAt(secret, now);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await verifySignIn(handle.db, { ...login, otp: wrong }, now)).toEqual({ ok: false, reason: "otp_invalid" });
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
