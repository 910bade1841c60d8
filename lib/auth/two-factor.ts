import "server-only";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import QRCode from "qrcode";
import { actingUser, type Ctx } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import { users, type UserRow } from "@/lib/db/schema";
import { UnauthorizedError, ValidationError } from "@/lib/errors";
import { checkCurrentPassword } from "./sign-in";
import { generateTotpSecret, matchTotpStep, totpUri } from "./totp";

const recoveryCodeCount = 10;

export interface TwoFactorEnrollment {
  secret: string;
  otpauthUri: string;
  qrCodeDataUrl: string;
}

function requireUser(ctx: Ctx): UserRow {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  return user;
}

/**
 * Starts (or resumes) enrollment: a pending secret the authenticator app scans. Nothing changes for sign-in until
 * the user proves, with a code, that the app has it.
 */
export async function beginTwoFactorEnrollment(ctx: Ctx): Promise<TwoFactorEnrollment> {
  const user = requireUser(ctx);
  // Re-enrolling would silently replace the secret and the recovery codes: disable first.
  if (user.otpSecret) throw new ValidationError({ two_factor: ["is already enabled"] });
  let secret = user.otpPendingSecret;
  if (!secret) {
    secret = generateTotpSecret();
    await ctx.db.update(users).set({ otpPendingSecret: secret }).where(eq(users.id, user.id));
  }
  const otpauthUri = totpUri(secret, user.username);
  return { secret, otpauthUri, qrCodeDataUrl: await QRCode.toDataURL(otpauthUri, { margin: 1, width: 200 }) };
}

/**
 * Confirms enrollment with a code from the app; returns the recovery codes, which are shown this once. Here and below,
 * a wrong password counts toward the account lock (`checkCurrentPassword`).
 */
export async function confirmTwoFactorEnrollment(ctx: Ctx, input: { code: string; password: string }): Promise<string[]> {
  const user = requireUser(ctx);
  if (user.otpSecret) throw new ValidationError({ two_factor: ["is already enabled"] });
  if (!(await checkCurrentPassword(ctx, user, input.password))) {
    throw new ValidationError({ password: ["is incorrect"] });
  }
  const step = user.otpPendingSecret ? matchTotpStep(user.otpPendingSecret, input.code.trim(), ctx.now) : null;
  if (step === null || !user.otpPendingSecret) throw new ValidationError({ code: ["is invalid, try again"] });
  const recoveryCodes = generateRecoveryCodes();
  await ctx.db
    .update(users)
    .set({
      otpSecret: user.otpPendingSecret,
      otpPendingSecret: null,
      otpEnabledAt: ctx.now,
      otpLastUsedStep: step,
      otpRecoveryCodeDigests: recoveryCodes.map((code) => sha256Hex(code)),
    })
    .where(eq(users.id, user.id));
  return recoveryCodes;
}

/** Replaces the recovery codes (the old ones stop working); requires the password. */
export async function regenerateRecoveryCodes(ctx: Ctx, input: { password: string }): Promise<string[]> {
  const user = requireUser(ctx);
  if (!user.otpSecret) throw new ValidationError({ two_factor: ["is not enabled"] });
  if (!(await checkCurrentPassword(ctx, user, input.password))) {
    throw new ValidationError({ password: ["is incorrect"] });
  }
  const recoveryCodes = generateRecoveryCodes();
  await ctx.db
    .update(users)
    .set({ otpRecoveryCodeDigests: recoveryCodes.map((code) => sha256Hex(code)) })
    .where(eq(users.id, user.id));
  return recoveryCodes;
}

/** Turns two-factor authentication off; requires the password. */
export async function disableTwoFactor(ctx: Ctx, input: { password: string }): Promise<void> {
  const user = requireUser(ctx);
  if (!(await checkCurrentPassword(ctx, user, input.password))) {
    throw new ValidationError({ password: ["is incorrect"] });
  }
  await ctx.db
    .update(users)
    .set({ otpSecret: null, otpPendingSecret: null, otpEnabledAt: null, otpLastUsedStep: null, otpRecoveryCodeDigests: [] })
    .where(eq(users.id, user.id));
}

function generateRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => randomBytes(8).toString("hex"));
}
