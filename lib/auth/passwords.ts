import "server-only";
import { and, eq, gte, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { generateSecret, sha256Hex } from "@/lib/crypto";
import { users } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { UnauthorizedError, ValidationError } from "@/lib/errors";
import { queueMail, type MailRequest } from "@/lib/mail/mailer";
import { linkStillValid, passwordResetLinkLifetimeMs } from "@/lib/users/confirmation-rules";
import { passwordProblem } from "@/lib/users/username-rules";
import { requireAdmin } from "@/lib/users/users";
import { throttleProtectedPath } from "@/lib/rate-limits/rate-limits";
import { hashPassword } from "./password";
import { checkCurrentPassword, unlockAccount } from "./sign-in";
import { raisedSessionVersion } from "./sessions";

export interface NewPassword {
  password: string;
  passwordConfirmation: string;
}

function validateNewPassword(input: NewPassword, errors: Record<string, string[]> = {}): void {
  const problem = passwordProblem(input.password);
  if (problem) errors.password = [problem];
  else if (input.password !== input.passwordConfirmation) errors.password_confirmation = ["doesn't match Password"];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * The profile's password page: the current password is required (a wrong one counts toward the account lock), and
 * afterwards every browser session of the account ends, this one included, so the person signs in again (GitLab does
 * the same). Any reset link stops working.
 */
export async function changePassword(ctx: Ctx, input: NewPassword & { currentPassword: string }): Promise<void> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const errors: Record<string, string[]> = {};
  if (!(await checkCurrentPassword(ctx, user, input.currentPassword))) errors.current_password = ["is incorrect"];
  validateNewPassword(input, errors);
  await storeNewPassword(ctx, user.id, input.password);
}

/** A new password in place: every browser session of the account ends and any reset link stops working. */
async function storeNewPassword(ctx: Ctx, userId: number, password: string): Promise<void> {
  await ctx.db
    .update(users)
    .set({ passwordHash: await hashPassword(password), resetPasswordTokenDigest: null, resetPasswordSentAt: null, ...raisedSessionVersion })
    .where(eq(users.id, userId));
}

/**
 * An administrator sets someone's password (the operator's `reset-password`, GitLab's `gitlab:password:reset`): the
 * same rules and the same consequences as a change the person makes.
 */
export async function setPasswordAsAdmin(ctx: Ctx, userId: number, password: string): Promise<void> {
  requireAdmin(ctx);
  const problem = passwordProblem(password);
  if (problem) throw new ValidationError({ password: [problem] });
  await storeNewPassword(ctx, userId, password);
}

export function passwordResetLink(token: string): string {
  return `${env.EXTERNAL_URL}/users/password/edit?reset_password_token=${encodeURIComponent(token)}`;
}

/**
 * `/users/password/new`: mails a reset link (valid six hours, once) if the address belongs to an active account. The
 * caller answers the same whatever happened, and the mail goes in the background, so the answer reveals no addresses.
 */
export async function requestPasswordReset(ctx: Ctx, request: MailRequest): Promise<void> {
  await throttleProtectedPath(request.clientAddress ?? null);
  const email = request.email;
  const token = generateSecret();
  const [user] = await ctx.db
    .update(users)
    .set({ resetPasswordTokenDigest: sha256Hex(token), resetPasswordSentAt: ctx.now })
    .where(sql`lower(${users.email}) = lower(${email.trim()}) and ${users.state} = 'active' and ${users.userType} = 'human'`)
    .returning();
  if (!user) return;
  const link = passwordResetLink(token);
  await queueMail({
    to: user.email,
    subject: "Reset password instructions",
    link,
    text: [
      `Hello, ${user.name}!`,
      "",
      `Someone, hopefully you, asked to reset the password of the account @${user.username} at ${env.EXTERNAL_URL}.`,
      "Choose a new password by opening this link within 6 hours; it works once:",
      "",
      link,
      "",
      "If you did not ask for this, ignore this message: your password stays as it is.",
    ].join("\n"),
  });
}

export type PasswordResetLinkState = "valid" | "expired" | "invalid";

/** Whether a reset link can still be used; the page asks before showing the form. Used links are unknown. */
export async function passwordResetLinkState(ctx: Ctx, token: string): Promise<PasswordResetLinkState> {
  const [found] = await ctx.db
    .select({ sentAt: users.resetPasswordSentAt, state: users.state })
    .from(users)
    .where(eq(users.resetPasswordTokenDigest, sha256Hex(token)));
  if (!found || found.state !== "active") return "invalid";
  return linkStillValid(found.sentAt, passwordResetLinkLifetimeMs, ctx.now) ? "valid" : "expired";
}

/**
 * `/users/password/edit`: sets a new password with a reset link. The link is spent in the same statement that sets the
 * password, so it works once even when used twice at the same moment, and every browser session of the account ends.
 */
export async function resetPassword(ctx: Ctx, input: NewPassword & { token: string }): Promise<void> {
  validateNewPassword(input);
  const state = await passwordResetLinkState(ctx, input.token);
  if (state !== "valid") throw new ValidationError({ reset_password_token: [state === "expired" ? "has expired, please request a new one" : "is invalid"] });
  const passwordHash = await hashPassword(input.password);
  const validSince = new Date(ctx.now.getTime() - passwordResetLinkLifetimeMs);
  const [reset] = await ctx.db
    .update(users)
    .set({ passwordHash, resetPasswordTokenDigest: null, resetPasswordSentAt: null, ...raisedSessionVersion })
    .where(
      and(
        eq(users.resetPasswordTokenDigest, sha256Hex(input.token)),
        gte(users.resetPasswordSentAt, validSince),
        eq(users.state, "active"),
      ),
    )
    .returning({ username: users.username, email: users.email });
  if (!reset) throw new ValidationError({ reset_password_token: ["is invalid"] });
  // Proving the address unlocks the account, as Devise's reset does.
  await unlockAccount(reset);
}
