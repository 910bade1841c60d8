import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { getAlertBot } from "@/lib/alerts/bot";
import { sessionStillValid } from "@/lib/auth/sessions";
import { verifySignIn } from "@/lib/auth/sign-in";
import { signUp } from "@/lib/auth/sign-up";
import { sha256Hex } from "@/lib/crypto";
import { users, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { logMailer, type MailMessage } from "@/lib/mail/mailer";
import { captureMail, linkSecret } from "@/lib/testing/mail";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { confirmEmail, resendConfirmationInstructions, resendOwnConfirmationInstructions } from "./confirmation";
import { createUserAsAdmin } from "./users";

const hour = 60 * 60 * 1000;
const day = 24 * hour;

const tokenIn = (message: MailMessage | undefined) => linkSecret(message, "confirmation_token");

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("email confirmation (soft, the default) on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;
  const at = (time: Date) => ({ ...anonymousTestContext(handle.db), now: time });

  async function signUpSomeone(now = new Date()) {
    const username = `signup_${uniqueSuffix()}`;
    const user = await signUp(at(now), { username, email: `${username}@Example.com`, name: "New Person", password: testPassword });
    return user;
  }

  it("defaults to soft", () => {
    expect(env.EMAIL_CONFIRMATION).toBe("soft");
  });

  it("starts a self sign-up unconfirmed and mails a link whose token is stored only as a digest", async () => {
    const sent = captureMail();
    const now = new Date();
    const user = await signUpSomeone(now);
    expect(sent).toHaveLength(1);
    const [mail] = sent;
    expect(mail).toMatchObject({ to: user.email, subject: "Confirmation instructions" });
    expect(mail!.link).toMatch(new RegExp(`^${env.EXTERNAL_URL}/users/confirmation\\?confirmation_token=[A-Za-z0-9_-]{43}$`));
    expect(mail!.text).toContain(mail!.link);
    const token = tokenIn(mail);
    const stored = await reload(user);
    expect(stored).toMatchObject({ confirmedAt: null, confirmationTokenDigest: sha256Hex(token), confirmationSentAt: now });
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("confirms once through the link; again says already confirmed; a wrong token is unknown", async () => {
    const sent = captureMail();
    const user = await signUpSomeone();
    const token = tokenIn(sent[0]);
    const later = new Date(Date.now() + hour);
    expect(await confirmEmail(at(later), token)).toBe("confirmed");
    expect((await reload(user)).confirmedAt).toEqual(later);
    expect(await confirmEmail(at(new Date(later.getTime() + hour)), token)).toBe("already_confirmed");
    expect((await reload(user)).confirmedAt).toEqual(later);
    expect(await confirmEmail(at(later), `${token}x`)).toBe("invalid");
    expect(await confirmEmail(at(later), "")).toBe("invalid");
  });

  it("refuses a link older than 24 hours, and a new link sent then works", async () => {
    const sent = captureMail();
    const start = new Date();
    const user = await signUpSomeone(start);
    const first = tokenIn(sent[0]);
    const dayLater = new Date(start.getTime() + day + 1);
    expect(await confirmEmail(at(dayLater), first)).toBe("expired");
    expect((await reload(user)).confirmedAt).toBeNull();

    await resendConfirmationInstructions(at(dayLater), { email: user.email.toUpperCase() });
    expect(sent).toHaveLength(2);
    const second = tokenIn(sent[1]);
    expect(second).not.toBe(first);
    // The new link replaces the old one.
    expect(await confirmEmail(at(dayLater), first)).toBe("invalid");
    expect(await confirmEmail(at(new Date(dayLater.getTime() + day)), second)).toBe("confirmed");
  });

  it("the link works up to exactly 24 hours after it was sent", async () => {
    const sent = captureMail();
    const start = new Date();
    await signUpSomeone(start);
    expect(await confirmEmail(at(new Date(start.getTime() + day)), tokenIn(sent[0]))).toBe("confirmed");
  });

  it("resending answers the same for unknown, confirmed, blocked and bot addresses, and mails nothing to them", async () => {
    const sent = captureMail();
    const confirmed = await createTestUser(handle.db);
    const bot = await getAlertBot(handle.db);
    const blocked = await signUpSomeone();
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, blocked.id));
    sent.length = 0;
    for (const email of ["nobody-here@example.com", confirmed.email, blocked.email, bot.email]) {
      await expect(resendConfirmationInstructions(at(new Date()), { email: email })).resolves.toBeUndefined();
    }
    expect(sent).toEqual([]);
    expect((await reload(confirmed)).confirmationTokenDigest).toBeNull();
  });

  it("a signed-in unconfirmed user asks for a new link; a confirmed one gets none", async () => {
    const sent = captureMail();
    const user = await signUpSomeone();
    await resendOwnConfirmationInstructions(userContext(handle.db, await reload(user)));
    expect(sent.map((mail) => mail.to)).toEqual([user.email, user.email]);
    expect(await confirmEmail(at(new Date()), tokenIn(sent[1]))).toBe("confirmed");
    await resendOwnConfirmationInstructions(userContext(handle.db, await reload(user)));
    expect(sent).toHaveLength(2);
  });

  it("lets an unconfirmed account sign in and keep its session for 3 days after the link was sent, then not until it confirms", async () => {
    const sent = captureMail();
    const start = new Date();
    const user = await signUpSomeone(start);
    const login = { login: user.username, password: testPassword };
    const threeDays = new Date(start.getTime() + 3 * day);
    expect(await verifySignIn(handle.db, login, threeDays)).toMatchObject({ ok: true });
    expect(sessionStillValid(await reload(user), 1, threeDays)).toBe(true);

    const afterGrace = new Date(threeDays.getTime() + 1);
    expect(await verifySignIn(handle.db, login, afterGrace)).toEqual({ ok: false, reason: "unconfirmed" });
    expect(sessionStillValid(await reload(user), 1, afterGrace)).toBe(false);
    // A wrong password still reads as a wrong password: the confirmation state is told only to the password's owner.
    expect(await verifySignIn(handle.db, { ...login, password: "wrong" }, afterGrace)).toEqual({ ok: false, reason: "invalid_credentials" });

    // A new link gives another grace period (Devise counts from the last link sent); confirming ends the question.
    await resendConfirmationInstructions(at(afterGrace), { email: user.email });
    expect(await verifySignIn(handle.db, login, afterGrace)).toMatchObject({ ok: true });
    expect(await confirmEmail(at(afterGrace), tokenIn(sent[1]))).toBe("confirmed");
    const muchLater = new Date(start.getTime() + 365 * day);
    expect(await verifySignIn(handle.db, login, muchLater)).toMatchObject({ ok: true });
    expect(sessionStillValid(await reload(user), 1, muchLater)).toBe(true);
  });

  it("admin-created users: skip_confirmation confirms at creation with no mail; without it a link is mailed", async () => {
    const sent = captureMail();
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const ctx = userContext(handle.db, admin);
    const input = () => {
      const username = `made_${uniqueSuffix()}`;
      return { username, email: `${username}@example.com`, name: "Made", password: testPassword };
    };
    const skipped = await createUserAsAdmin(ctx, { ...input(), skipConfirmation: true });
    expect(skipped.confirmedAt).toEqual(ctx.now);
    expect(skipped.confirmationTokenDigest).toBeNull();
    expect(sent).toEqual([]);

    const pending = await createUserAsAdmin(ctx, input());
    expect(pending.confirmedAt).toBeNull();
    expect(sent.map((mail) => mail.to)).toEqual([pending.email]);
    expect(pending.confirmationTokenDigest).toBe(sha256Hex(tokenIn(sent[0])));
  });

  it("a mail server that fails does not fail the sign-up", async () => {
    vi.spyOn(logMailer, "send").mockRejectedValue(new Error("connection refused"));
    const user = await signUpSomeone();
    expect((await reload(user)).confirmationTokenDigest).toMatch(/^[0-9a-f]{64}$/);
  });
});
