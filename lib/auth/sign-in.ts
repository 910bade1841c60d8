import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { RefusedError } from "@/lib/errors";
import { getRateLimits, RateLimitExceeded, type RateLimits } from "@/lib/rate-limits/rate-limits";
import { confirmationRequiredOnSignIn } from "@/lib/users/confirmation-rules";
import { findUserByLogin } from "@/lib/users/users";
import { verifyPassword } from "./password";
import { raisedSessionVersion } from "./sessions";
import { matchTotpStep } from "./totp";

export type SignInFailure =
  /** Unknown login or wrong password: deliberately one answer for both. */
  | "invalid_credentials"
  | "locked"
  | "blocked"
  /** The password was right but the account must confirm its email address first (EMAIL_CONFIRMATION). */
  | "unconfirmed"
  /** The password was right and the account has two-factor authentication: ask for a code. */
  | "otp_required"
  | "otp_invalid";

export type SignInResult = { ok: true; user: UserRow } | { ok: false; reason: SignInFailure };

export interface SignInAttempt {
  login: string;
  password: string;
  /** A TOTP code or a recovery code, for accounts with two-factor authentication. */
  otp?: string;
  /** Where the attempt comes from (lib/http/client-address.ts), for the per-address throttle; unknown, none applies. */
  clientAddress?: string | null;
}

/** The account lock counts failures per login as typed, so unknown logins lock like real ones and reveal nothing. */
export function accountThrottleKey(login: string): string {
  return sha256Hex(login.trim().toLowerCase());
}

/**
 * Checks a sign-in attempt (the web form and the password grant). Wrong passwords and wrong codes count twice:
 * - per login: SIGN_IN_MAX_ATTEMPTS failures lock the account for SIGN_IN_LOCK_MINUTES (even for the right password),
 *   and a successful sign-in starts the count again;
 * - per client address: over THROTTLE_FAILED_SIGN_INS_PER_IP failures in a period, every attempt from there is refused
 *   with `RateLimitExceeded` until the period ends, whichever accounts it tries.
 */
export async function verifySignIn(db: Database, attempt: SignInAttempt, now: Date): Promise<SignInResult> {
  const limits = await getRateLimits();
  await limits.checkAttempts("failedSignInsPerAddress", attempt.clientAddress ?? null);
  const login = attempt.login.trim();
  const user = await findUserByLogin(db, login);
  // The hash is checked whatever happens next, so the answer takes as long for unknown and locked accounts.
  const passwordMatches = await verifyPassword(user?.passwordHash, attempt.password);
  if (await isLocked(limits, login)) return { ok: false, reason: "locked" };
  if (!user || user.userType !== "human" || !passwordMatches) return recordFailure(limits, attempt, "invalid_credentials");
  if (user.state === "blocked") return { ok: false, reason: "blocked" };
  if (confirmationRequiredOnSignIn(user, env.EMAIL_CONFIRMATION, now)) return { ok: false, reason: "unconfirmed" };

  if (user.otpSecret) {
    const otp = attempt.otp?.trim();
    if (!otp) return { ok: false, reason: "otp_required" };
    const accepted = (await acceptTotp(db, user, otp, now)) || (await consumeRecoveryCode(db, user, otp));
    if (!accepted) return recordFailure(limits, attempt, "otp_invalid");
  }

  await limits.reset("failedSignInsPerAccount", accountThrottleKey(login));
  const [signedIn] = await db.update(users).set({ lastSignInAt: now }).where(eq(users.id, user.id)).returning();
  return { ok: true, user: signedIn ?? user };
}

/** Lifts the lock of an account, whichever login (username or email address) the failures were counted under. */
export async function unlockAccount(user: Pick<UserRow, "username" | "email">): Promise<void> {
  const limits = await getRateLimits();
  await limits.reset("failedSignInsPerAccount", accountThrottleKey(user.username));
  await limits.reset("failedSignInsPerAccount", accountThrottleKey(user.email));
}

async function isLocked(limits: RateLimits, login: string): Promise<boolean> {
  return (await lockOn(limits, [accountThrottleKey(login)])) !== null;
}

/** The lock on any of `keys` (an account's logins), or null when none is locked. */
async function lockOn(limits: RateLimits, keys: Iterable<string>): Promise<RateLimitExceeded | null> {
  for (const key of keys) {
    try {
      await limits.checkAttempts("failedSignInsPerAccount", key);
    } catch (error) {
      if (error instanceof RateLimitExceeded) return error;
      throw error;
    }
  }
  return null;
}

/**
 * Checks the current password a signed-in person types to change their password or their two-factor authentication.
 * As on GitLab (Devise's `increment_failed_attempts!`), a wrong one counts toward the account lock like a failed
 * sign-in, under both of the account's logins, so whoever holds a session cannot guess the password behind it. The
 * wrong password that locks the account also ends every session of it, as GitLab signs a locked account out; while
 * the account is locked, even the right password is refused. Returns whether the password is right, and throws a
 * `RefusedError` that says what happened when the account is, or has just become, locked.
 */
export async function checkCurrentPassword(ctx: Ctx, user: UserRow, password: string): Promise<boolean> {
  const limits = await getRateLimits();
  const keys = new Set([accountThrottleKey(user.username), accountThrottleKey(user.email)]);
  const passwordMatches = await verifyPassword(user.passwordHash, password);
  const lock = await lockOn(limits, keys);
  if (lock) {
    const minutes = Math.ceil(lock.retryAfterSeconds() / 60);
    throw new RefusedError(
      `Your account is locked after too many failed attempts. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}, or reset your password by email.`,
    );
  }
  if (passwordMatches) return true;
  let lockedNow = false;
  for (const key of keys) lockedNow = (await limits.recordFailure("failedSignInsPerAccount", key)) || lockedNow;
  if (!lockedNow) return false;
  for (const key of keys) await limits.block("failedSignInsPerAccount", key, env.SIGN_IN_LOCK_MINUTES * 60);
  await ctx.db.update(users).set(raisedSessionVersion).where(eq(users.id, user.id));
  throw new RefusedError(
    `Too many wrong passwords: your account is locked for ${env.SIGN_IN_LOCK_MINUTES} minutes and signed out everywhere. Sign in again after that, or reset your password by email.`,
  );
}

async function recordFailure(limits: RateLimits, attempt: SignInAttempt, reason: SignInFailure): Promise<SignInResult> {
  const key = accountThrottleKey(attempt.login);
  if (await limits.recordFailure("failedSignInsPerAccount", key)) {
    await limits.block("failedSignInsPerAccount", key, env.SIGN_IN_LOCK_MINUTES * 60);
  }
  await limits.recordFailure("failedSignInsPerAddress", attempt.clientAddress ?? null);
  return { ok: false, reason };
}

async function acceptTotp(db: Database, user: UserRow, code: string, now: Date): Promise<boolean> {
  const step = matchTotpStep(user.otpSecret!, code, now);
  if (step === null) return false;
  // Claim the step atomically: a code already used (or an older one) is refused.
  const claimed = await db
    .update(users)
    .set({ otpLastUsedStep: step })
    .where(sql`${users.id} = ${user.id} and (${users.otpLastUsedStep} is null or ${users.otpLastUsedStep} < ${step})`)
    .returning({ id: users.id });
  return claimed.length === 1;
}

async function consumeRecoveryCode(db: Database, user: UserRow, code: string): Promise<boolean> {
  const digest = sha256Hex(code.toLowerCase().replace(/\s+/g, ""));
  const consumed = await db
    .update(users)
    .set({ otpRecoveryCodeDigests: sql`array_remove(${users.otpRecoveryCodeDigests}, ${digest})` })
    .where(sql`${users.id} = ${user.id} and ${digest} = any(${users.otpRecoveryCodeDigests})`)
    .returning({ id: users.id });
  return consumed.length === 1;
}
