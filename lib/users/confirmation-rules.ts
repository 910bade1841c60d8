import type { UserRow } from "@/lib/db/schema";

/** GitLab's `email_confirmation_setting` (EMAIL_CONFIRMATION). */
export type EmailConfirmationSetting = "off" | "soft" | "hard";

const hourMs = 60 * 60 * 1000;

/** GitLab's Devise `confirm_within`: a confirmation link works for a day after it was sent. */
export const confirmationLinkLifetimeMs = 24 * hourMs;

/** GitLab's Devise `allow_unconfirmed_access_for`: with `soft`, an unconfirmed account signs in for three days. */
export const unconfirmedAccessMs = 3 * 24 * hourMs;

/** A password reset link works for six hours after it was sent, and once. */
export const passwordResetLinkLifetimeMs = 6 * hourMs;

type ConfirmationState = Pick<UserRow, "confirmedAt" | "confirmationSentAt">;

/**
 * GitLab's `User#confirmation_required_on_sign_in?`: whether an account must confirm its email address before it may
 * sign in (or keep a session) at `now`. `off` never requires it, `hard` always does until confirmed, and `soft` does
 * once the grace period after the last link was sent is over.
 */
export function confirmationRequiredOnSignIn(user: ConfirmationState, setting: EmailConfirmationSetting, now: Date): boolean {
  if (user.confirmedAt) return false;
  if (setting === "off") return false;
  if (setting === "hard") return true;
  return !user.confirmationSentAt || now.getTime() - user.confirmationSentAt.getTime() > unconfirmedAccessMs;
}

/** Whether a one-time link sent at `sentAt` still works at `now`. */
export function linkStillValid(sentAt: Date | null, lifetimeMs: number, now: Date): boolean {
  return sentAt !== null && now.getTime() - sentAt.getTime() <= lifetimeMs;
}
