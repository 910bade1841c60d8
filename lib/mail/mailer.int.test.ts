import { afterAll, afterEach, describe, expect, it, vi } from "vitest";

// The configuration is read once, when lib/env is first imported: the SMTP server must be listening before that.
const smtp = await vi.hoisted(async () => {
  const { startTestSmtpServer } = await import("@/lib/testing/smtp");
  const server = await startTestSmtpServer({ user: "mailer", password: "smtp pass:word" });
  process.env.SMTP_URL = server.url("mailer", "smtp pass:word");
  process.env.MAIL_FROM = "Code host <noreply@code.example>";
  return server;
});

import { requestPasswordReset, resetPassword } from "@/lib/auth/passwords";
import { verifySignIn } from "@/lib/auth/sign-in";
import { signUp } from "@/lib/auth/sign-up";
import { logger } from "@/lib/log";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, uniqueSuffix } from "@/lib/testing/fixtures";
import { confirmEmail } from "@/lib/users/confirmation";
import { env } from "@/lib/env";
import { deliverMail, logMailer, queueMail, smtpMailer } from "./mailer";

const message = { to: "someone@example.com", subject: "Subject line", text: "Open https://host.example/link-secret", link: "https://host.example/link-secret" };

afterAll(() => smtp.close());
afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("mail through SMTP_URL on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("mails the confirmation link of a new account, authenticated, from MAIL_FROM; the link confirms", async () => {
    const username = `mailed_${uniqueSuffix()}`;
    const user = await signUp(anonymousTestContext(handle.db), { username, email: `${username}@example.com`, name: "Mailed Person", password: "long enough password" });
    const mail = await smtp.nextMail();
    expect(mail).toMatchObject({ user: "mailer", from: "noreply@code.example", to: [user.email] });
    expect(mail.headers).toMatchObject({ from: "Code host <noreply@code.example>", to: user.email, subject: "Confirmation instructions" });
    const link = /http:\/\/\S+\/users\/confirmation\?confirmation_token=(\S+)/.exec(mail.text);
    expect(link, mail.text).not.toBeNull();
    expect(mail.text).toContain(`Welcome, Mailed Person!`);
    expect(await confirmEmail(anonymousTestContext(handle.db), decodeURIComponent(link![1]!))).toBe("confirmed");
  });

  it("mails a password reset link that sets a new password", async () => {
    const username = `reset_${uniqueSuffix()}`;
    const user = await signUp(anonymousTestContext(handle.db), { username, email: `${username}@example.com`, name: "Reset Person", password: "long enough password" });
    await smtp.nextMail();
    await requestPasswordReset(anonymousTestContext(handle.db), { email: user.email.toUpperCase() });
    const mail = await smtp.nextMail();
    expect(mail.headers).toMatchObject({ to: user.email, subject: "Reset password instructions" });
    const token = /\/users\/password\/edit\?reset_password_token=(\S+)/.exec(mail.text)?.[1];
    expect(token, mail.text).toBeDefined();
    await resetPassword(anonymousTestContext(handle.db), { token: decodeURIComponent(token!), password: "a brand new password", passwordConfirmation: "a brand new password" });
    const signedIn = await verifySignIn(handle.db, { login: username, password: "a brand new password" }, new Date());
    expect(signedIn.ok).toBe(true);
  });
});

describe("a mail server that fails", () => {
  it("fails the delivery, not the caller, and logs it without the link", async () => {
    const logged = vi.spyOn(logger, "error");
    const before = smtp.received.length;
    expect(await deliverMail(message, smtpMailer(smtp.url("mailer", "wrong password"), "x@code.example"))).toBe(false);
    // Port 1 on loopback: nothing listens there, the connection is refused.
    expect(await deliverMail(message, smtpMailer("smtp://127.0.0.1:1", "x@code.example"))).toBe(false);
    expect(smtp.received.length).toBe(before);
    expect(logged).toHaveBeenCalledTimes(2);
    for (const [fields, text] of logged.mock.calls as unknown as [Record<string, unknown>, string][]) {
      expect(text).toBe("mail could not be sent");
      expect(fields.mail).toEqual({ to: "someone@example.com", subject: "Subject line" });
      expect(JSON.stringify(fields)).not.toContain("link-secret");
    }
  });
});

describe("without a mail server", () => {
  it("writes the recipient, subject and link as one structured log line", async () => {
    const logged = vi.spyOn(logger, "warn");
    expect(await deliverMail(message, logMailer)).toBe(true);
    expect(logged).toHaveBeenCalledWith(
      { mail: { to: "someone@example.com", subject: "Subject line", link: "https://host.example/link-secret" } },
      "mail is not configured (SMTP_URL): message written here instead of sent",
    );
  });
});

describe("mail to one address", () => {
  it("is dropped past THROTTLE_MAILS_PER_RECIPIENT messages a period, in any case of the address, and others still go", async () => {
    const sent: string[] = [];
    const mailer = { send: async (mail: { to: string }) => void sent.push(mail.to) };
    const victim = `victim_${uniqueSuffix()}@example.com`;
    for (let count = 0; count < env.THROTTLE_MAILS_PER_RECIPIENT; count++) {
      expect(await queueMail({ ...message, to: count % 2 ? victim.toUpperCase() : victim }, mailer)).toBe(true);
    }
    const dropped = vi.spyOn(logger, "info");
    expect(await queueMail({ ...message, to: victim }, mailer)).toBe(false);
    expect(dropped).toHaveBeenCalledWith({ mail: { subject: "Subject line" } }, "mail not sent: too many messages to this address lately");
    expect(await queueMail({ ...message, to: `other_${victim}` }, mailer)).toBe(true);
    expect(sent).toHaveLength(env.THROTTLE_MAILS_PER_RECIPIENT + 1);
    expect(sent.at(-1)).toBe(`other_${victim}`);
  });
});
