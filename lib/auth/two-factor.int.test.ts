import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { users, type UserRow } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { env } from "@/lib/env";
import { RefusedError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, userContext } from "@/lib/testing/fixtures";
import { verifySignIn } from "./sign-in";
import { totpCodeAt } from "./totp";
import { beginTwoFactorEnrollment, confirmTwoFactorEnrollment, disableTwoFactor, regenerateRecoveryCodes } from "./two-factor";

const now = new Date("2030-06-15T12:00:00Z");

describe.each(testDatabases())("two-factor enrollment on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;
  // Each request sees the user as stored at that moment.
  const ctxFor = async (user: UserRow, at = now) => ({ ...userContext(handle.db, await reload(user)), now: at });

  async function enrol(user: UserRow) {
    const { secret } = await beginTwoFactorEnrollment(await ctxFor(user));
    const codes = await confirmTwoFactorEnrollment(await ctxFor(user), { code: totpCodeAt(secret, now), password: testPassword });
    return { secret, codes };
  }

  it("counts wrong passwords on every form that asks for it toward the account lock, which ends the sessions", async () => {
    const user = await createTestUser(handle.db);
    const { secret } = await beginTwoFactorEnrollment(await ctxFor(user));
    const wrong = { code: totpCodeAt(secret, now), password: "wrong password" };
    const attempts = [
      () => confirmTwoFactorEnrollment(userContext(handle.db, user), wrong),
      async () => {
        if (!(await reload(user)).otpSecret) await enrol(user);
        return regenerateRecoveryCodes(await ctxFor(user), wrong);
      },
      async () => disableTwoFactor(await ctxFor(user), wrong),
    ];
    for (let attempt = 1; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt++) {
      await expect(attempts[attempt % attempts.length]!()).rejects.toMatchObject({ errors: { password: ["is incorrect"] } });
    }
    const signedInUnder = (await reload(user)).sessionVersion;
    await expect(disableTwoFactor(await ctxFor(user), wrong)).rejects.toThrow(RefusedError);
    const stored = await reload(user);
    expect(stored.sessionVersion).toBe(signedInUnder + 1);
    // Two-factor authentication is still on, and the right password is refused while the account is locked.
    expect(stored.otpSecret).not.toBeNull();
    await expect(disableTwoFactor(await ctxFor(user), { password: testPassword })).rejects.toThrow(/^Your account is locked after too many failed attempts/);
    expect((await reload(user)).otpSecret).not.toBeNull();
  });

  it("begins with a pending secret that changes nothing for sign-in, and resumes with the same secret", async () => {
    const user = await createTestUser(handle.db);
    const enrollment = await beginTwoFactorEnrollment(await ctxFor(user));
    expect(enrollment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrollment.otpauthUri).toContain(`secret=${enrollment.secret}`);
    expect(enrollment.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
    expect(await reload(user)).toMatchObject({ otpPendingSecret: enrollment.secret, otpSecret: null, otpEnabledAt: null });
    expect((await beginTwoFactorEnrollment(await ctxFor(user))).secret).toBe(enrollment.secret);
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).ok).toBe(true);
  });

  it("confirms with the password and a current code, then requires codes at sign-in", async () => {
    const user = await createTestUser(handle.db);
    const { secret } = await beginTwoFactorEnrollment(await ctxFor(user));
    const code = totpCodeAt(secret, now);
    await expect(confirmTwoFactorEnrollment(await ctxFor(user), { code, password: "wrong password" })).rejects.toMatchObject({
      errors: { password: ["is incorrect"] },
    });
    await expect(confirmTwoFactorEnrollment(await ctxFor(user), { code: "000000", password: testPassword })).rejects.toMatchObject({
      errors: { code: ["is invalid, try again"] },
    });
    const codes = await confirmTwoFactorEnrollment(await ctxFor(user), { code, password: testPassword });
    expect(codes).toHaveLength(10);
    for (const recovery of codes) expect(recovery).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(codes).size).toBe(10);

    const stored = await reload(user);
    expect(stored).toMatchObject({ otpSecret: secret, otpPendingSecret: null, otpEnabledAt: now });
    expect(stored.otpRecoveryCodeDigests).toEqual(codes.map((recovery) => sha256Hex(recovery)));
    // The code used to confirm cannot be replayed to sign in.
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword, otp: code }, now)).toEqual({
      ok: false,
      reason: "otp_invalid",
    });
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).toEqual({ ok: false, reason: "otp_required" });
    const next = new Date(now.getTime() + 30_000);
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword, otp: totpCodeAt(secret, next) }, next)).ok).toBe(true);
  });

  it("confirming without a pending secret fails", async () => {
    const user = await createTestUser(handle.db);
    await expect(confirmTwoFactorEnrollment(await ctxFor(user), { code: "123456", password: testPassword })).rejects.toThrow(ValidationError);
  });

  it("regenerates recovery codes: the old ones stop working", async () => {
    const user = await createTestUser(handle.db);
    await expect(regenerateRecoveryCodes(await ctxFor(user), { password: testPassword })).rejects.toMatchObject({
      errors: { two_factor: ["is not enabled"] },
    });
    const { codes } = await enrol(user);
    await expect(regenerateRecoveryCodes(await ctxFor(user), { password: "wrong password" })).rejects.toThrow(ValidationError);
    const fresh = await regenerateRecoveryCodes(await ctxFor(user), { password: testPassword });
    expect(fresh).toHaveLength(10);
    const login = { login: user.username, password: testPassword };
    expect(await verifySignIn(handle.db, { ...login, otp: codes[0]! }, now)).toEqual({ ok: false, reason: "otp_invalid" });
    expect((await verifySignIn(handle.db, { ...login, otp: fresh[0]! }, now)).ok).toBe(true);
  });

  it("disables with the password: sign-in no longer asks for a code", async () => {
    const user = await createTestUser(handle.db);
    await enrol(user);
    await expect(disableTwoFactor(await ctxFor(user), { password: "wrong password" })).rejects.toThrow(ValidationError);
    expect((await reload(user)).otpSecret).not.toBeNull();
    await disableTwoFactor(await ctxFor(user), { password: testPassword });
    expect(await reload(user)).toMatchObject({
      otpSecret: null,
      otpPendingSecret: null,
      otpEnabledAt: null,
      otpLastUsedStep: null,
      otpRecoveryCodeDigests: [],
    });
    expect((await verifySignIn(handle.db, { login: user.username, password: testPassword }, now)).ok).toBe(true);
  });

  it("needs a signed-in user", async () => {
    await expect(beginTwoFactorEnrollment(anonymousTestContext(handle.db))).rejects.toThrow(UnauthorizedError);
  });
});
