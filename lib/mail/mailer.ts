import "server-only";
import nodemailer from "nodemailer";
import { sha256Hex } from "@/lib/crypto";
import { env } from "@/lib/env";
import { logger } from "@/lib/log";
import { getRateLimits, RateLimitExceeded } from "@/lib/rate-limits/rate-limits";

/**
 * A plain-text message. One about a link (a confirmation, a password reset) names it in `link`: the link is what the
 * recipient needs, and what the log shows when no mail server is configured. A notification (an alert) carries its
 * headers (`X-GitLab-…`) for mail filters.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  link?: string;
  headers?: Record<string, string>;
}

/** Someone asks for a link by email address (`/users/password/new`, `/users/confirmation/new`), from somewhere. */
export interface MailRequest {
  email: string;
  /** For the protected-paths throttle; unknown outside an HTTP request. */
  clientAddress?: string | null;
}

export interface Mailer {
  /** Sends the message; rejects when the mail server refuses it or cannot be reached. */
  send(message: MailMessage): Promise<void>;
}

/** Mail through an SMTP server, configured by one nodemailer URL (`smtps://user:password@host:465`). */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl, {
    from,
    // A mail server that does not answer must not hold requests for nodemailer's default of minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ to: message.to, subject: message.subject, text: message.text, headers: message.headers });
    },
  };
}

/**
 * Without a mail server the message goes to the log, one structured line with the recipient, the subject and the
 * link if it has one, so an instance that has no SMTP_URL still lets its operator hand out confirmation and reset
 * links, and see which notifications would have gone out.
 */
export const logMailer: Mailer = {
  async send(message) {
    const mail = message.link === undefined ? { to: message.to, subject: message.subject } : { to: message.to, subject: message.subject, link: message.link };
    logger.warn({ mail }, "mail is not configured (SMTP_URL): message written here instead of sent");
  },
};

const globalForMail = globalThis as unknown as { mailer?: Mailer };

/** The instance's mailer: SMTP_URL's server, or the log without one. */
export function configuredMailer(): Mailer {
  globalForMail.mailer ??= env.SMTP_URL ? smtpMailer(env.SMTP_URL, env.MAIL_FROM) : logMailer;
  return globalForMail.mailer;
}

/**
 * Hands a message to the mail server in the background: the caller's answer never waits for, or depends on, the mail
 * server. Past THROTTLE_MAILS_PER_RECIPIENT messages to one address in a period, the message is dropped (and that is
 * logged): the forms that send mail answer the same whatever happens, so nobody can use them to flood someone's inbox.
 * Resolves whether the message was handed over.
 */
export async function queueMail(message: MailMessage, mailer: Mailer = configuredMailer()): Promise<boolean> {
  try {
    await (await getRateLimits()).consume("mailsPerRecipient", sha256Hex(message.to.toLowerCase()));
  } catch (error) {
    if (!(error instanceof RateLimitExceeded)) throw error;
    logger.info({ mail: { subject: message.subject } }, "mail not sent: too many messages to this address lately");
    return false;
  }
  void deliverMail(message, mailer);
  return true;
}

/**
 * Sends a message without ever failing the caller: the account change that asked for it is already committed, and the
 * person can ask for another link. A failure is logged (without the link); resolves whether it was sent.
 */
export async function deliverMail(message: MailMessage, mailer: Mailer = configuredMailer()): Promise<boolean> {
  try {
    await mailer.send(message);
    return true;
  } catch (error) {
    logger.error({ err: error, mail: { to: message.to, subject: message.subject } }, "mail could not be sent");
    return false;
  }
}
