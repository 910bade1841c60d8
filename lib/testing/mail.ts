import { vi } from "vitest";
import { logMailer, type MailMessage } from "@/lib/mail/mailer";

/**
 * Collects what the service mails from now on (until the test restores its mocks): without SMTP_URL every message
 * goes through the log mailer.
 */
export function captureMail(): MailMessage[] {
  const sent: MailMessage[] = [];
  vi.spyOn(logMailer, "send").mockImplementation(async (message) => {
    sent.push(message);
  });
  return sent;
}

/** The secret a mailed link carries in its query parameter `name`; fails the test when there is none. */
export function linkSecret(message: MailMessage | undefined, name: "confirmation_token" | "reset_password_token"): string {
  const secret = message?.link && new URL(message.link).searchParams.get(name);
  if (!secret) throw new Error(`no ${name} in ${JSON.stringify(message)}`);
  return secret;
}
