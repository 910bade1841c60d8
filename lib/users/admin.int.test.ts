import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { getAlertBot } from "@/lib/alerts/bot";
import { sessionStillValid } from "@/lib/auth/sessions";
import { verifySignIn } from "@/lib/auth/sign-in";
import { namespaces, users, type UserRow } from "@/lib/db/schema";
import { verifyPassword } from "@/lib/auth/password";
import { passwordResetLinkState, requestPasswordReset, resetPassword } from "@/lib/auth/passwords";
import { ConflictError, ForbiddenError, NotFoundError, RefusedError, ValidationError } from "@/lib/errors";
import { createProject, getVisibleProject } from "@/lib/projects/projects";
import { captureMail, linkSecret } from "@/lib/testing/mail";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { blockUser, confirmUserAsAdmin, getUserAsAdmin, listUsersAsAdmin, unblockUser, updateUserAsAdmin } from "./admin";

const firstPage = { page: 1, perPage: 20, offset: 0 };

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testDatabases())("user administration on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const reload = async (user: UserRow) => (await handle.db.select().from(users).where(eq(users.id, user.id)))[0]!;
  const asAdmin = async () => userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));

  it("is for admins only", async () => {
    const target = await createTestUser(handle.db);
    for (const ctx of [userContext(handle.db, await createTestUser(handle.db)), anonymousTestContext(handle.db)]) {
      await expect(listUsersAsAdmin(ctx, {}, firstPage)).rejects.toThrow(ForbiddenError);
      await expect(getUserAsAdmin(ctx, target.username)).rejects.toThrow(ForbiddenError);
      await expect(confirmUserAsAdmin(ctx, target.id)).rejects.toThrow(ForbiddenError);
      await expect(blockUser(ctx, target.id)).rejects.toThrow(ForbiddenError);
      await expect(unblockUser(ctx, target.id)).rejects.toThrow(ForbiddenError);
    }
    expect(await reload(target)).toMatchObject({ state: "active", sessionVersion: 1 });
  });

  it("lists and searches every account", async () => {
    const admin = await asAdmin();
    const marker = uniqueSuffix();
    const found = await createTestUser(handle.db, { username: `admin_list_${marker}`, confirmed: false });
    const result = await listUsersAsAdmin(admin, { search: marker }, firstPage);
    expect(result).toMatchObject({ total: 1, items: [{ id: found.id, confirmedAt: null }] });
    expect((await getUserAsAdmin(admin, found.username.toUpperCase())).id).toBe(found.id);
    await expect(getUserAsAdmin(admin, "nobody-at-all")).rejects.toThrow(NotFoundError);
  });

  it("confirms a user's address once", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db, { confirmed: false });
    const confirmed = await confirmUserAsAdmin(admin, user.id);
    expect(confirmed.confirmedAt).toEqual(admin.now);
    const again = await confirmUserAsAdmin({ ...admin, now: new Date(admin.now.getTime() + 1000) }, user.id);
    expect(again.confirmedAt).toEqual(admin.now);
    await expect(confirmUserAsAdmin(admin, 2_147_483_647)).rejects.toThrow(NotFoundError);
  });

  it("blocks: no sign-in, every session ends; blocking again changes nothing; unblocking lets the user back in", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db);
    expect(await blockUser(admin, user.id)).toBe(true);
    const blocked = await reload(user);
    expect(blocked).toMatchObject({ state: "blocked", sessionVersion: 2 });
    expect(sessionStillValid(blocked, 1, new Date())).toBe(false);
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, new Date())).toEqual({ ok: false, reason: "blocked" });

    expect(await blockUser(admin, user.id)).toBe(false);
    expect((await reload(user)).sessionVersion).toBe(2);

    expect(await unblockUser(admin, user.id)).toBe(true);
    const unblocked = await reload(user);
    expect(unblocked).toMatchObject({ state: "active", sessionVersion: 2 });
    // Sessions from before the block stay ended; a new sign-in works.
    expect(sessionStillValid(unblocked, 1, new Date())).toBe(false);
    expect(await verifySignIn(handle.db, { login: user.username, password: testPassword }, new Date())).toMatchObject({ ok: true });
    expect(await unblockUser(admin, user.id)).toBe(false);
  });

  it("refuses to block the admin who asks and internal users; other admins can be blocked; unknown ids are 404", async () => {
    const admin = await asAdmin();
    const self = blockUser(admin, admin.actor.kind === "user" ? admin.actor.user.id : 0);
    await expect(self).rejects.toThrow(ForbiddenError);
    await expect(self).rejects.toMatchObject({ message: "403 Forbidden - The API initiating user cannot be blocked by the API" });
    const bot = await getAlertBot(handle.db);
    const internal = blockUser(admin, bot.id);
    await expect(internal).rejects.toThrow(RefusedError);
    await expect(internal).rejects.toMatchObject({ status: 403, message: "An internal user cannot be blocked" });
    expect((await reload(bot)).state).toBe("active");
    const otherAdmin = await createTestUser(handle.db, { isAdmin: true });
    expect(await blockUser(admin, otherAdmin.id)).toBe(true);
    await expect(blockUser(admin, 2_147_483_647)).rejects.toThrow(NotFoundError);
    await expect(unblockUser(admin, 2_147_483_647)).rejects.toThrow(NotFoundError);
  });

  it("updates a user's profile, flags and name for admins only; the namespace follows the username and name", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db);
    const project = await createProject(userContext(handle.db, user), { name: `Moves ${uniqueSuffix()}` });
    for (const ctx of [userContext(handle.db, user), anonymousTestContext(handle.db)]) {
      await expect(updateUserAsAdmin(ctx, user.id, { name: "Nope" })).rejects.toThrow(ForbiddenError);
    }
    const username = `renamed_${uniqueSuffix()}`;
    const updated = await updateUserAsAdmin(admin, user.id, {
      name: " New Name ",
      username,
      external: true,
      admin: true,
      bio: "Bio",
      location: "Lisbon",
      organization: "ACME",
      jobTitle: "Engineer",
      websiteUrl: "https://example.com",
    });
    expect(updated).toMatchObject({
      name: "New Name",
      username,
      external: true,
      isAdmin: true,
      bio: "Bio",
      location: "Lisbon",
      organization: "ACME",
      jobTitle: "Engineer",
      websiteUrl: "https://example.com",
      email: user.email,
      sessionVersion: user.sessionVersion,
    });
    expect(await reload(user)).toEqual(updated);
    const [namespace] = await handle.db.select().from(namespaces).where(eq(namespaces.ownerId, user.id));
    expect(namespace).toMatchObject({ path: username, name: "New Name" });
    expect((await getVisibleProject(admin, `${username}/${project.project.path}`)).project.id).toBe(project.project.id);
    // Nothing asked, nothing changed.
    expect(await updateUserAsAdmin(admin, user.id, {})).toEqual(updated);
    await expect(updateUserAsAdmin(admin, 2_147_483_647, { name: "x" })).rejects.toThrow(NotFoundError);
  });

  it("refuses taken usernames and addresses with 409 and malformed values with 400, changing nothing", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db);
    const other = await createTestUser(handle.db);
    await expect(updateUserAsAdmin(admin, user.id, { username: other.username.toUpperCase() })).rejects.toThrow(
      new ConflictError("Username has already been taken"),
    );
    await expect(updateUserAsAdmin(admin, user.id, { email: other.email.toUpperCase() })).rejects.toThrow(
      new ConflictError("Email has already been taken"),
    );
    await expect(updateUserAsAdmin(admin, user.id, { password: "short" })).rejects.toMatchObject({
      errors: { password: ["is too short (minimum is 8 characters)"] },
    });
    await expect(updateUserAsAdmin(admin, user.id, { bio: "x".repeat(256), email: "not-an-email" })).rejects.toThrow(ValidationError);
    expect(await reload(user)).toEqual(user);
  });

  it("a new password works at once and ends the user's browser sessions", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db);
    const updated = await updateUserAsAdmin(admin, user.id, { password: "a brand new password" });
    expect(await verifyPassword(updated.passwordHash, "a brand new password")).toBe(true);
    expect(await verifyPassword(updated.passwordHash, testPassword)).toBe(false);
    expect(updated.sessionVersion).toBe(user.sessionVersion + 1);
    expect(sessionStillValid(updated, user.sessionVersion, new Date())).toBe(false);
  });

  it("a new address is confirmed at once with skip_reconfirmation, else it waits for the link mailed to it", async () => {
    const admin = await asAdmin();
    const user = await createTestUser(handle.db);
    const sent = captureMail();
    const skipped = await updateUserAsAdmin(admin, user.id, { email: `Skip_${uniqueSuffix()}@Example.com`, skipReconfirmation: true });
    expect(skipped.email).toMatch(/^skip_[0-9a-f]+@example\.com$/);
    expect(skipped.confirmedAt).toEqual(admin.now);
    const address = `mailed_${uniqueSuffix()}@example.com`;
    const mailed = await updateUserAsAdmin(admin, user.id, { email: address });
    expect(mailed).toMatchObject({ email: address, confirmedAt: null, confirmationSentAt: admin.now });
    expect(mailed.confirmationTokenDigest).not.toBeNull();
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ to: address, subject: "Confirmation instructions" });
  });

  it("a new address or a new password voids a pending password reset link; other changes keep it", async () => {
    const admin = await asAdmin();
    const sent = captureMail();
    const pendingLink = async (user: UserRow) => {
      await requestPasswordReset(anonymousTestContext(handle.db), { email: (await reload(user)).email });
      await vi.waitFor(() => expect(sent.at(-1)?.subject).toBe("Reset password instructions"));
      const token = linkSecret(sent.at(-1), "reset_password_token");
      expect(await passwordResetLinkState(anonymousTestContext(handle.db), token)).toBe("valid");
      return token;
    };
    const user = await createTestUser(handle.db);
    const kept = await pendingLink(user);
    await updateUserAsAdmin(admin, user.id, { bio: "Still mine", email: user.email.toUpperCase() });
    expect(await passwordResetLinkState(anonymousTestContext(handle.db), kept)).toBe("valid");

    for (const change of [{ email: `moved_${uniqueSuffix()}@example.com`, skipReconfirmation: true }, { password: "an admin's choice of password" }]) {
      const token = await pendingLink(user);
      await updateUserAsAdmin(admin, user.id, change);
      expect(await reload(user)).toMatchObject({ resetPasswordTokenDigest: null, resetPasswordSentAt: null });
      expect(await passwordResetLinkState(anonymousTestContext(handle.db), token)).toBe("invalid");
      await expect(
        resetPassword(anonymousTestContext(handle.db), { token, password: "taken over by the link", passwordConfirmation: "taken over by the link" }),
      ).rejects.toThrow(ValidationError);
    }
    expect(await verifyPassword((await reload(user)).passwordHash, "an admin's choice of password")).toBe(true);
  });
});
