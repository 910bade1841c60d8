import "server-only";
import { eq, sql } from "drizzle-orm";
import { sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { findUserByLogin } from "@/lib/users/users";
import { verifyPassword } from "./password";
import { matchTotpStep } from "./totp";

export type SignInFailure =
  /** Unknown login or wrong password: deliberately one answer for both. */
  | "invalid_credentials"
  | "locked"
  | "blocked"
  /** The password was right and the account has two-factor authentication: ask for a code. */
  | "otp_required"
  | "otp_invalid";

export type SignInResult = { ok: true; user: UserRow } | { ok: false; reason: SignInFailure };

export interface SignInAttempt {
  login: string;
  password: string;
  /** A TOTP code or a recovery code, for accounts with two-factor authentication. */
  otp?: string;
}

/**
 * Checks a sign-in attempt. Wrong passwords and wrong codes count towards the lockout: after
 * SIGN_IN_MAX_ATTEMPTS failures in a row the account refuses every sign-in for SIGN_IN_LOCK_MINUTES.
 */
export async function verifySignIn(db: Database, attempt: SignInAttempt, now: Date): Promise<SignInResult> {
  const user = await findUserByLogin(db, attempt.login.trim());
  const passwordMatches = await verifyPassword(user?.passwordHash, attempt.password);
  if (!user || user.userType !== "human") return { ok: false, reason: "invalid_credentials" };
  if (user.lockedUntil && user.lockedUntil > now) return { ok: false, reason: "locked" };
  if (!passwordMatches) return recordFailure(db, user, now, "invalid_credentials");
  if (user.state === "blocked") return { ok: false, reason: "blocked" };

  if (user.otpSecret) {
    const otp = attempt.otp?.trim();
    if (!otp) return { ok: false, reason: "otp_required" };
    const accepted = (await acceptTotp(db, user, otp, now)) || (await consumeRecoveryCode(db, user, otp));
    if (!accepted) return recordFailure(db, user, now, "otp_invalid");
  }

  const [signedIn] = await db
    .update(users)
    .set({ failedSignInAttempts: 0, lockedUntil: null, lastSignInAt: now })
    .where(eq(users.id, user.id))
    .returning();
  return { ok: true, user: signedIn ?? user };
}

async function recordFailure(db: Database, user: UserRow, now: Date, reason: SignInFailure): Promise<SignInResult> {
  const lockUntil = new Date(now.getTime() + env.SIGN_IN_LOCK_MINUTES * 60_000);
  // One statement, so concurrent failures cannot lose counts.
  await db
    .update(users)
    .set({
      failedSignInAttempts: sql`case when ${users.failedSignInAttempts} + 1 >= ${env.SIGN_IN_MAX_ATTEMPTS} then 0 else ${users.failedSignInAttempts} + 1 end`,
      lockedUntil: sql`case when ${users.failedSignInAttempts} + 1 >= ${env.SIGN_IN_MAX_ATTEMPTS} then ${lockUntil.toISOString()}::timestamptz else ${users.lockedUntil} end`,
    })
    .where(eq(users.id, user.id));
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
