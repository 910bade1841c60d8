import "server-only";
import { and, eq, gte, isNull, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { generateSecret, sha256Hex } from "@/lib/crypto";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { queueMail, type MailRequest } from "@/lib/mail/mailer";
import { throttleProtectedPath } from "@/lib/rate-limits/rate-limits";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { confirmationLinkLifetimeMs } from "./confirmation-rules";

/** The columns a new account starts with, and the link to mail when it must confirm its address. */
export interface StartedConfirmation {
  columns: Pick<UserRow, "confirmedAt" | "confirmationTokenDigest" | "confirmationSentAt">;
  /** Null when the account is confirmed from the start. */
  token: string | null;
}

/**
 * How a new account's confirmation begins: confirmed at once when an admin skips it (GitLab's `skip_confirmation`) or
 * the instance does not confirm addresses (EMAIL_CONFIRMATION=off); otherwise with a link to mail.
 */
export function startConfirmation(now: Date, { skip }: { skip: boolean }): StartedConfirmation {
  if (skip || env.EMAIL_CONFIRMATION === "off") {
    return { columns: { confirmedAt: now, confirmationTokenDigest: null, confirmationSentAt: null }, token: null };
  }
  const token = generateSecret();
  return { columns: { confirmedAt: null, confirmationTokenDigest: sha256Hex(token), confirmationSentAt: now }, token };
}

export function confirmationLink(token: string): string {
  return `${env.EXTERNAL_URL}/users/confirmation?confirmation_token=${encodeURIComponent(token)}`;
}

/** Mails the link (in the background, see queueMail). */
export async function mailConfirmationInstructions(user: Pick<UserRow, "email" | "name" | "username">, token: string): Promise<void> {
  const link = confirmationLink(token);
  await queueMail({
    to: user.email,
    subject: "Confirmation instructions",
    link,
    text: [
      `Welcome, ${user.name}!`,
      "",
      `Confirm that ${user.email} is your email address, for the account @${user.username} at ${env.EXTERNAL_URL}, by opening this link within 24 hours:`,
      "",
      link,
      "",
      "If you did not create this account, you can ignore this message.",
    ].join("\n"),
  });
}

/** A fresh link for an unconfirmed account: the previous one stops working. */
async function sendNewConfirmationLink(ctx: Ctx, user: UserRow): Promise<void> {
  const token = generateSecret();
  const [updated] = await ctx.db
    .update(users)
    .set({ confirmationTokenDigest: sha256Hex(token), confirmationSentAt: ctx.now })
    .where(and(eq(users.id, user.id), isNull(users.confirmedAt)))
    .returning({ id: users.id });
  if (updated) await mailConfirmationInstructions(user, token);
}

/**
 * `/users/confirmation/new`: mails a new link to the address if it belongs to an unconfirmed active account. The
 * caller answers the same whatever happened (GitLab's paranoid mode), so the form reveals no addresses.
 */
export async function resendConfirmationInstructions(ctx: Ctx, request: MailRequest): Promise<void> {
  await throttleProtectedPath(request.clientAddress ?? null);
  const email = request.email;
  const [user] = await ctx.db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email.trim()})`);
  if (!user || user.confirmedAt || user.state !== "active" || user.userType !== "human") return;
  await sendNewConfirmationLink(ctx, user);
}

/** The signed-in user asks for a new link from the notice every page shows them. */
export async function resendOwnConfirmationInstructions(ctx: Ctx): Promise<void> {
  const user = actingUser(ctx);
  if (!user || user.confirmedAt) return;
  await sendNewConfirmationLink(ctx, user);
}

export type ConfirmationOutcome = "confirmed" | "already_confirmed" | "expired" | "invalid";

/**
 * `/users/confirmation?confirmation_token=…`: confirms the address of the account the link was sent to, within a day
 * of sending. The digest stays after confirming (as Devise keeps the token), so opening the link again can say the
 * address is already confirmed rather than that the link is unknown.
 */
export async function confirmEmail(ctx: Ctx, token: string): Promise<ConfirmationOutcome> {
  const digest = sha256Hex(token);
  const validSince = new Date(ctx.now.getTime() - confirmationLinkLifetimeMs);
  const [confirmed] = await ctx.db
    .update(users)
    .set({ confirmedAt: ctx.now })
    .where(and(eq(users.confirmationTokenDigest, digest), isNull(users.confirmedAt), gte(users.confirmationSentAt, validSince)))
    .returning({ id: users.id });
  if (confirmed) {
    // `email_verified` in userinfo and ID tokens follows at once.
    forgetTokenChecks(ctx.db, `user:${confirmed.id}`);
    return "confirmed";
  }
  const [found] = await ctx.db.select({ confirmedAt: users.confirmedAt }).from(users).where(eq(users.confirmationTokenDigest, digest));
  if (!found) return "invalid";
  return found.confirmedAt ? "already_confirmed" : "expired";
}
