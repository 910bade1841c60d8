import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { namespaces, users } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { getAlertBot } from "@/lib/alerts/bot";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { verifyPassword } from "@/lib/auth/password";
import { createUserAsAdmin, findUserByLogin, getUserByIdOrUsername, insertUser, listUsers, listUsersByKeyset } from "./users";

describe.each(testDatabases())("users on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("creates the user with a hashed password, a lower-case email and a namespace of the same path", async () => {
    const username = `Mixed_${uniqueSuffix()}`;
    const user = await insertUser(handle.db, { username, email: `${username}@Example.COM`, name: "  Spaced  ", password: testPassword });
    expect(user).toMatchObject({ username, email: `${username.toLowerCase()}@example.com`, name: "Spaced", isAdmin: false, state: "active" });
    expect(user.passwordHash).not.toContain(testPassword);
    expect(await verifyPassword(user.passwordHash, testPassword)).toBe(true);
    const [namespace] = await handle.db.select().from(namespaces).where(eq(namespaces.ownerId, user.id));
    expect(namespace).toMatchObject({ path: username, name: "Spaced", kind: "user" });
  });

  it("refuses duplicate usernames and emails case-insensitively, and leaves nothing behind", async () => {
    const existing = await createTestUser(handle.db);
    const fresh = `fresh_${uniqueSuffix()}`;
    const emailDuplicate = insertUser(handle.db, { username: fresh, email: existing.email.toUpperCase(), name: "x", password: testPassword });
    await expect(emailDuplicate).rejects.toThrow(ConflictError);
    await expect(emailDuplicate).rejects.toThrow("Email has already been taken");
    const usernameDuplicate = insertUser(handle.db, {
      username: existing.username.toUpperCase(),
      email: `${fresh}@example.com`,
      name: "x",
      password: testPassword,
    });
    await expect(usernameDuplicate).rejects.toThrow("Username has already been taken");
    expect(await handle.db.select().from(users).where(eq(users.username, fresh))).toEqual([]);
    expect(await handle.db.select().from(namespaces).where(eq(namespaces.path, fresh))).toEqual([]);
  });

  it("validates every field at once", async () => {
    const attempt = insertUser(handle.db, { username: "-bad", email: "nope", name: " ", password: "short" });
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(attempt).rejects.toMatchObject({
      errors: {
        username: ["can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or '.'"],
        email: ["is invalid"],
        name: ["can't be blank"],
        password: ["is too short (minimum is 8 characters)"],
      },
    });
  });

  it("only admins create users through the admin verb", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const plain = await createTestUser(handle.db);
    const input = () => {
      const username = `made_${uniqueSuffix()}`;
      return { username, email: `${username}@example.com`, name: "Made", password: testPassword };
    };
    await expect(createUserAsAdmin(userContext(handle.db, plain), input())).rejects.toThrow(ForbiddenError);
    await expect(createUserAsAdmin(anonymousTestContext(handle.db), input())).rejects.toThrow(ForbiddenError);
    const made = await createUserAsAdmin(userContext(handle.db, admin), { ...input(), isAdmin: true });
    expect(made.isAdmin).toBe(true);
  });

  it("finds users by login (username or email, any case) and by id or username", async () => {
    const user = await createTestUser(handle.db);
    expect((await findUserByLogin(handle.db, user.username.toUpperCase()))?.id).toBe(user.id);
    expect((await findUserByLogin(handle.db, user.email.toUpperCase()))?.id).toBe(user.id);
    expect(await findUserByLogin(handle.db, "nobody-at-all")).toBeUndefined();
    const ctx = anonymousTestContext(handle.db);
    expect((await getUserByIdOrUsername(ctx, String(user.id))).id).toBe(user.id);
    expect((await getUserByIdOrUsername(ctx, user.username)).id).toBe(user.id);
    await expect(getUserByIdOrUsername(ctx, "nobody-at-all")).rejects.toThrow(NotFoundError);
  });

  it("lists by exact username for anyone and by search for signed-in users, with LIKE characters taken literally", async () => {
    const marker = uniqueSuffix();
    const percent = await createTestUser(handle.db, { username: `pct_${marker}_a` });
    await createTestUser(handle.db, { username: `pct_${marker}xb` });
    const page = { page: 1, perPage: 20, offset: 0 };
    const anonymous = anonymousTestContext(handle.db);
    expect((await listUsers(anonymous, { username: percent.username.toUpperCase() }, page)).items.map((u) => u.id)).toEqual([percent.id]);
    await expect(listUsers(anonymous, {}, page)).rejects.toThrow(ForbiddenError);
    const signedIn = userContext(handle.db, percent);
    const found = await listUsers(signedIn, { search: `${marker}_` }, page);
    expect(found.items.map((u) => u.id)).toEqual([percent.id]);
    expect(found.total).toBe(1);
  });

  it("search matches an email address only whole for everyone but admins, who match it in part", async () => {
    const marker = uniqueSuffix();
    const target = await createTestUser(handle.db, { username: `mail_${marker}` });
    const other = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const page = { page: 1, perPage: 20, offset: 0 };
    const found = async (ctx: ReturnType<typeof userContext>, filter: { username?: string; search: string }) =>
      (await listUsers(ctx, filter, page)).items.map((user) => user.id);
    const anonymous = anonymousTestContext(handle.db);
    const signedIn = userContext(handle.db, other);
    // `mail_<marker>@example.com`: a prefix with the `@` is no part of the username or the name.
    const prefix = `${target.username}@e`;
    for (const ctx of [anonymous, signedIn]) {
      expect(await found(ctx, { username: target.username, search: prefix })).toEqual([]);
      expect(await found(ctx, { username: target.username, search: "example.com" })).toEqual([]);
      expect(await found(ctx, { username: target.username, search: target.email.toUpperCase() })).toEqual([target.id]);
    }
    expect(await found(signedIn, { search: `ail_${marker}` })).toEqual([target.id]);
    expect(await found(userContext(handle.db, admin), { search: prefix })).toEqual([target.id]);
  });

  it("filters as GitLab's users list: active people, blocked, external (admins only), and admins' dates and order", async () => {
    const marker = `flt${uniqueSuffix()}`;
    const make = (suffix: string) => createTestUser(handle.db, { username: `${marker}_${suffix}` });
    const active = await make("a");
    const blocked = await make("b");
    const external = await make("c");
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, blocked.id));
    await handle.db.update(users).set({ external: true, createdAt: new Date("2001-06-01T00:00:00Z") }).where(eq(users.id, external.id));
    const admin = userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));
    const signedIn = userContext(handle.db, active);
    const page = { page: 1, perPage: 20, offset: 0 };
    const ids = async (ctx: ReturnType<typeof userContext>, filter: Parameters<typeof listUsers>[1]) =>
      (await listUsers(ctx, { search: marker, ...filter }, page)).items.map((user) => user.id);

    // Newest first by default.
    expect(await ids(signedIn, {})).toEqual([external.id, blocked.id, active.id]);
    expect(await ids(signedIn, { active: true })).toEqual([external.id, active.id]);
    expect(await ids(signedIn, { blocked: true })).toEqual([blocked.id]);
    expect(await ids(admin, { external: true })).toEqual([external.id]);
    await expect(ids(signedIn, { external: true })).rejects.toThrow(ForbiddenError);
    await expect(listUsers(anonymousTestContext(handle.db), { external: true, username: active.username }, page)).rejects.toThrow(
      UnauthorizedError,
    );
    const since = { createdAfter: new Date("2010-01-01T00:00:00Z") };
    expect(await ids(admin, since)).toEqual([blocked.id, active.id]);
    expect(await ids(admin, { createdBefore: new Date("2010-01-01T00:00:00Z") })).toEqual([external.id]);
    expect(await ids(admin, { orderBy: "created_at", sort: "asc" })).toEqual([external.id, active.id, blocked.id]);
    expect(await ids(admin, { orderBy: "username", sort: "asc" })).toEqual([active.id, blocked.id, external.id]);
    // Others' date bounds and order are ignored, as GitLab drops them.
    expect(await ids(signedIn, { ...since, orderBy: "username", sort: "asc" })).toEqual([external.id, blocked.id, active.id]);
  });

  it("`active` leaves out the service's own bots", async () => {
    const bot = await getAlertBot(handle.db);
    const admin = userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));
    const page = { page: 1, perPage: 20, offset: 0 };
    expect((await listUsers(admin, { username: bot.username }, page)).items.map((user) => user.id)).toEqual([bot.id]);
    expect((await listUsers(admin, { username: bot.username, active: true }, page)).items).toEqual([]);
  });

  it("admins create external users with a profile, whose lengths GitLab limits", async () => {
    const admin = userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));
    const username = `ext_${uniqueSuffix()}`;
    const created = await createUserAsAdmin(admin, {
      username,
      email: `${username}@example.com`,
      name: "Ext",
      password: testPassword,
      external: true,
      bio: "Contractor",
      jobTitle: "Auditor",
      organization: "Outside Ltd",
      skipConfirmation: true,
    });
    expect(created).toMatchObject({ external: true, bio: "Contractor", jobTitle: "Auditor", organization: "Outside Ltd", location: null });
    await expect(
      createUserAsAdmin(admin, { username: `${username}_2`, email: `${username}_2@example.com`, name: "Long", password: testPassword, jobTitle: "x".repeat(201) }),
    ).rejects.toMatchObject({ errors: { job_title: ["is too long (maximum is 200 characters)"] } });
  });

  it("keyset pages (GitLab's cursor) walk the same users as offset pages, in every order an admin may choose", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const adminCtx = userContext(handle.db, admin);
    const marker = uniqueSuffix();
    // Names that sort in another order than their ids, and two that tie (the id breaks the tie).
    for (const name of ["Mike", "Alpha", "Zulu", "Alpha", "Kilo"]) {
      await insertUser(handle.db, { username: `keyset_${marker}_${uniqueSuffix()}`, email: `${uniqueSuffix()}@example.com`, name: `${name} ${marker}`, password: testPassword });
    }
    for (const orderBy of ["id", "name", "username", "created_at", "updated_at"] as const) {
      for (const sort of ["asc", "desc"] as const) {
        const filter = { search: `keyset_${marker}`, orderBy, sort };
        const byOffset = (await listUsers(adminCtx, filter, { page: 1, perPage: 100, offset: 0 })).items.map((user) => user.id);
        expect(byOffset).toHaveLength(5);
        const walked: number[] = [];
        let cursor: string | undefined;
        for (let step = 0; step < 10; step += 1) {
          const page = await listUsersByKeyset(adminCtx, filter, 2, cursor);
          walked.push(...page.items.map((user) => user.id));
          if (page.nextCursor === null) break;
          cursor = page.nextCursor;
        }
        expect(walked, `${orderBy} ${sort}`).toEqual(byOffset);
      }
    }
    // Anyone else gets the newest accounts first, whatever order they ask for, by keyset as by offset.
    const someone = userContext(handle.db, await createTestUser(handle.db));
    const theirs = await listUsersByKeyset(someone, { search: `keyset_${marker}`, orderBy: "name", sort: "asc" }, 5, undefined);
    const ids = theirs.items.map((user) => user.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(theirs.nextCursor).toBeNull();
  });

  it("a cursor that is not one the list gave is refused as a bad parameter", async () => {
    const adminCtx = userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));
    const badCursors = ["not base64 json", Buffer.from("[1]").toString("base64url"), Buffer.from('{"id":"1"}').toString("base64url"), Buffer.from('{"id":"x","_kd":"n"}').toString("base64url")];
    for (const cursor of badCursors) {
      await expect(listUsersByKeyset(adminCtx, {}, 20, cursor)).rejects.toEqual(new ParameterError("cursor", "is invalid"));
    }
    // A cursor of another order than the one asked for lacks that order's value.
    const byId = await listUsersByKeyset(adminCtx, {}, 1, undefined);
    await expect(listUsersByKeyset(adminCtx, { orderBy: "name" }, 1, byId.nextCursor!)).rejects.toEqual(new ParameterError("cursor", "is invalid"));
  });
});
