import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { RefusedError, UnauthorizedError, ValidationError } from "@/lib/errors";
import type { MailMessage } from "@/lib/mail/mailer";
import { captureMail, linkSecret } from "@/lib/testing/mail";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { anonymousTestContext, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { changePassword, passwordResetLinkState, requestPasswordReset, resetPassword } from "./passwords";
import { sessionStillValid } from "./sessions";
import { verifySignIn } from "./sign-in";

const hour = 60 * 60 * 1000;
const newPassword = "a completely new password";

const resetTokenIn = (message: MailMessage | undefined) => linkSecret(message, "reset_password_token");

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("passwords on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;
  const at = (time: Date) => ({ ...anonymousTestContext(handle.db), now: time });
  const signsInWith = async (user: UserRow, password: string) => (await verifySignIn(handle.db, { login: user.username, password }, new Date())).ok;

  describe("changing the password on the profile", () => {
    it("needs the current password and a confirmed new one, and changes nothing otherwise", async () => {
      const user = await createTestUser(handle.db);
      const ctx = userContext(handle.db, user);
      const attempt = changePassword(ctx, { currentPassword: "not it", password: newPassword, passwordConfirmation: newPassword });
      await expect(attempt).rejects.toThrow(ValidationError);
      await expect(attempt).rejects.toMatchObject({ errors: { current_password: ["is incorrect"] } });
      await expect(changePassword(ctx, { currentPassword: testPassword, password: newPassword, passwordConfirmation: "different" })).rejects.toMatchObject({
        errors: { password_confirmation: ["doesn't match Password"] },
      });
      await expect(changePassword(ctx, { currentPassword: testPassword, password: "short", passwordConfirmation: "short" })).rejects.toMatchObject({
        errors: { password: ["is too short (minimum is 8 characters)"] },
      });
      const stored = await reload(user);
      expect(stored.passwordHash).toBe(user.passwordHash);
      expect(stored.sessionVersion).toBe(user.sessionVersion);
      await expect(changePassword(anonymousTestContext(handle.db), { currentPassword: testPassword, password: newPassword, passwordConfirmation: newPassword })).rejects.toThrow(
        UnauthorizedError,
      );
    });

    it("sets the new password and ends every session signed in before, and any reset link", async () => {
      captureMail();
      const user = await createTestUser(handle.db);
      await requestPasswordReset(at(new Date()), { email: user.email });
      const signedInUnder = user.sessionVersion;
      await changePassword(userContext(handle.db, user), { currentPassword: testPassword, password: newPassword, passwordConfirmation: newPassword });
      const stored = await reload(user);
      expect(stored.sessionVersion).toBe(signedInUnder + 1);
      expect(sessionStillValid(stored, signedInUnder, new Date())).toBe(false);
      expect(sessionStillValid(stored, stored.sessionVersion, new Date())).toBe(true);
      expect(stored).toMatchObject({ resetPasswordTokenDigest: null, resetPasswordSentAt: null });
      expect(await signsInWith(user, testPassword)).toBe(false);
      expect(await signsInWith(user, newPassword)).toBe(true);
    });
  });

  describe("a wrong current password", () => {
    const wrongCurrent = { currentPassword: "not it", password: newPassword, passwordConfirmation: newPassword };
    const lockedMessage = `Too many wrong passwords: your account is locked for ${env.SIGN_IN_LOCK_MINUTES} minutes and signed out everywhere. Sign in again after that, or reset your password by email.`;

    it("counts toward the account lock: the one that locks it ends every session, and the account signs in nowhere", async () => {
      const user = await createTestUser(handle.db);
      const ctx = userContext(handle.db, user);
      for (let attempt = 1; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt++) {
        await expect(changePassword(ctx, wrongCurrent)).rejects.toMatchObject({ errors: { current_password: ["is incorrect"] } });
      }
      expect((await reload(user)).sessionVersion).toBe(user.sessionVersion);
      const locking = changePassword(ctx, wrongCurrent);
      await expect(locking).rejects.toThrow(RefusedError);
      await expect(locking).rejects.toThrow(lockedMessage);
      const stored = await reload(user);
      expect(stored.sessionVersion).toBe(user.sessionVersion + 1);
      expect(stored.passwordHash).toBe(user.passwordHash);
      // Locked whichever login is typed, even with the right password.
      for (const login of [user.username, user.email.toUpperCase()]) {
        expect(await verifySignIn(handle.db, { login, password: testPassword }, new Date())).toEqual({ ok: false, reason: "locked" });
      }
      // While locked, not even the right current password is taken.
      await expect(changePassword(userContext(handle.db, stored), { ...wrongCurrent, currentPassword: testPassword })).rejects.toThrow(
        `Your account is locked after too many failed attempts. Try again in ${env.SIGN_IN_LOCK_MINUTES} minutes, or reset your password by email.`,
      );
      expect((await reload(user)).passwordHash).toBe(user.passwordHash);
    });

    it("adds up with failed sign-ins, and a password reset by email unlocks the account", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      for (let attempt = 1; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt++) {
        expect(await verifySignIn(handle.db, { login: user.username, password: `guess ${attempt}` }, new Date())).toEqual({ ok: false, reason: "invalid_credentials" });
      }
      await expect(changePassword(userContext(handle.db, user), wrongCurrent)).rejects.toThrow(lockedMessage);
      await requestPasswordReset(at(new Date()), { email: user.email });
      await resetPassword(at(new Date()), { token: resetTokenIn(sent[0]), password: newPassword, passwordConfirmation: newPassword });
      expect(await signsInWith(user, newPassword)).toBe(true);
    });
  });

  describe("resetting a forgotten password", () => {
    it("mails a link to the account's address, stored only as a digest", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      const now = new Date();
      await requestPasswordReset(at(now), { email: ` ${user.email.toUpperCase()} ` });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ to: user.email, subject: "Reset password instructions" });
      const token = resetTokenIn(sent[0]);
      expect(sent[0]!.link).toBe(`${env.EXTERNAL_URL}/users/password/edit?reset_password_token=${token}`);
      expect(sent[0]!.text).toContain(sent[0]!.link);
      expect(await reload(user)).toMatchObject({ resetPasswordTokenDigest: sha256Hex(token), resetPasswordSentAt: now });
    });

    it("answers the same and mails nothing for unknown and blocked addresses", async () => {
      const sent = captureMail();
      const blocked = await createTestUser(handle.db);
      await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, blocked.id));
      for (const email of ["nobody-at-all@example.com", blocked.email]) {
        await expect(requestPasswordReset(at(new Date()), { email: email })).resolves.toBeUndefined();
      }
      expect(sent).toEqual([]);
      expect((await reload(blocked)).resetPasswordTokenDigest).toBeNull();
    });

    it("sets the new password once, ends every session, and the link is then unknown", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      const now = new Date();
      await requestPasswordReset(at(now), { email: user.email });
      const token = resetTokenIn(sent[0]);
      expect(await passwordResetLinkState(at(now), token)).toBe("valid");

      await expect(resetPassword(at(now), { token, password: newPassword, passwordConfirmation: "other" })).rejects.toMatchObject({
        errors: { password_confirmation: ["doesn't match Password"] },
      });
      await resetPassword(at(new Date(now.getTime() + hour)), { token, password: newPassword, passwordConfirmation: newPassword });
      const stored = await reload(user);
      expect(stored).toMatchObject({ resetPasswordTokenDigest: null, resetPasswordSentAt: null, sessionVersion: user.sessionVersion + 1 });
      expect(await signsInWith(user, newPassword)).toBe(true);
      expect(await signsInWith(user, testPassword)).toBe(false);

      expect(await passwordResetLinkState(at(now), token)).toBe("invalid");
      await expect(resetPassword(at(now), { token, password: "yet another password", passwordConfirmation: "yet another password" })).rejects.toMatchObject({
        errors: { reset_password_token: ["is invalid"] },
      });
      expect(await signsInWith(user, newPassword)).toBe(true);
    });

    it("refuses a link older than 6 hours, and a wrong one", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      const now = new Date();
      await requestPasswordReset(at(now), { email: user.email });
      const token = resetTokenIn(sent[0]);
      expect(await passwordResetLinkState(at(new Date(now.getTime() + 6 * hour)), token)).toBe("valid");
      const late = new Date(now.getTime() + 6 * hour + 1);
      expect(await passwordResetLinkState(at(late), token)).toBe("expired");
      await expect(resetPassword(at(late), { token, password: newPassword, passwordConfirmation: newPassword })).rejects.toMatchObject({
        errors: { reset_password_token: ["has expired, please request a new one"] },
      });
      expect(await passwordResetLinkState(at(now), `${token}x`)).toBe("invalid");
      expect((await reload(user)).passwordHash).toBe(user.passwordHash);
    });

    it("a newer link replaces the older one", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      await requestPasswordReset(at(new Date()), { email: user.email });
      await requestPasswordReset(at(new Date()), { email: user.email });
      expect(await passwordResetLinkState(at(new Date()), resetTokenIn(sent[0]))).toBe("invalid");
      expect(await passwordResetLinkState(at(new Date()), resetTokenIn(sent[1]))).toBe("valid");
    });

    it("a link used twice at the same moment sets one password", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      await requestPasswordReset(at(new Date()), { email: user.email });
      const token = resetTokenIn(sent[0]);
      const results = await Promise.allSettled(
        ["first new password", "second new password"].map((password) => resetPassword(at(new Date()), { token, password, passwordConfirmation: password })),
      );
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      expect((await reload(user)).sessionVersion).toBe(user.sessionVersion + 1);
      expect([await signsInWith(user, "first new password"), await signsInWith(user, "second new password")].filter(Boolean)).toHaveLength(1);
    });

    it("a reset unlocks an account that failed sign-ins had locked", async () => {
      const sent = captureMail();
      const user = await createTestUser(handle.db);
      for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt++) await signsInWith(user, "wrong guess");
      expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, new Date())).toEqual({ ok: false, reason: "locked" });
      await requestPasswordReset(at(new Date()), { email: user.email });
      await resetPassword(at(new Date()), { token: resetTokenIn(sent[0]), password: newPassword, passwordConfirmation: newPassword });
      expect(await signsInWith(user, newPassword)).toBe(true);
    });

    it("one address may ask for THROTTLE_PROTECTED_PATHS_PER_IP links a period, whatever the addresses asked about", async () => {
      captureMail();
      const clientAddress = `203.0.113.${uniqueSuffix()}`;
      for (let request = 0; request < env.THROTTLE_PROTECTED_PATHS_PER_IP; request++) {
        await requestPasswordReset(at(new Date()), { email: `nobody_${uniqueSuffix()}@example.com`, clientAddress });
      }
      const refused = requestPasswordReset(at(new Date()), { email: `nobody_${uniqueSuffix()}@example.com`, clientAddress });
      await expect(refused).rejects.toBeInstanceOf(RateLimitExceeded);
      await expect(refused).rejects.toMatchObject({ throttle: { name: "throttle_unauthenticated_protected_paths" } });
      await requestPasswordReset(at(new Date()), { email: `nobody_${uniqueSuffix()}@example.com`, clientAddress: `${clientAddress}-other` });
    });
  });
});
