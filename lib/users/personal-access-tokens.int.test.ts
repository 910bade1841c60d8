import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { personalAccessTokens } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { createContext } from "@/lib/context";
import {
  createPersonalAccessTokenAsAdmin,
  findPersonalAccessTokenByValue,
  insertPersonalAccessToken,
  isTokenExpired,
  listPersonalAccessTokens,
  revokePersonalAccessToken,
  serializePersonalAccessToken,
} from "./personal-access-tokens";

const now = new Date("2030-06-15T12:00:00Z");
const page = { page: 1, perPage: 20, offset: 0 };

describe.each(testDatabases())("personal access tokens on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("stores only the SHA-256 digest, never the token", async () => {
    const user = await createTestUser(handle.db);
    const issued = await insertPersonalAccessToken(handle.db, user.id, { name: " ci ", scopes: ["api", "api", "read_user"] }, now);
    expect(issued.token).toMatch(/^glpat-[A-Za-z0-9_-]{43}$/);
    const [row] = await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, issued.record.id));
    expect(row).toMatchObject({ userId: user.id, name: "ci", scopes: ["api", "read_user"], tokenDigest: sha256Hex(issued.token), revoked: false });
    expect(JSON.stringify(row)).not.toContain(issued.token.slice(6));
    expect((await findPersonalAccessTokenByValue(handle.db, issued.token))?.user.id).toBe(user.id);
    expect(await findPersonalAccessTokenByValue(handle.db, `${issued.token}x`)).toBeUndefined();
  });

  it("expires at the start of its expiry day, judged by `now`", async () => {
    const user = await createTestUser(handle.db);
    const { record } = await insertPersonalAccessToken(handle.db, user.id, { name: "soon", scopes: ["api"], expiresAt: "2030-06-16" }, now);
    expect(isTokenExpired(record, now)).toBe(false);
    expect(isTokenExpired(record, new Date("2030-06-15T23:59:59.999Z"))).toBe(false);
    expect(isTokenExpired(record, new Date("2030-06-16T00:00:00Z"))).toBe(true);
    expect(serializePersonalAccessToken(record, new Date("2030-06-16T00:00:00Z")).active).toBe(false);
    expect(serializePersonalAccessToken(record, now)).toEqual({
      id: record.id,
      name: "soon",
      revoked: false,
      created_at: record.createdAt.toISOString(),
      scopes: ["api"],
      user_id: user.id,
      active: true,
      expires_at: "2030-06-16",
    });
  });

  it("refuses an expiry date that is not in the future, an empty name and no scopes", async () => {
    const user = await createTestUser(handle.db);
    await expect(
      insertPersonalAccessToken(handle.db, user.id, { name: "x", scopes: ["api"], expiresAt: "2030-06-15" }, now),
    ).rejects.toMatchObject({ errors: { expires_at: ["must be in the future"] } });
    await expect(insertPersonalAccessToken(handle.db, user.id, { name: " ", scopes: [] }, now)).rejects.toThrow(ValidationError);
  });

  it("admins create tokens for existing users only", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const user = await createTestUser(handle.db);
    const input = { name: "t", scopes: ["api" as const] };
    await expect(createPersonalAccessTokenAsAdmin(userContext(handle.db, user), user.id, input)).rejects.toThrow(ForbiddenError);
    await expect(createPersonalAccessTokenAsAdmin(userContext(handle.db, admin), 2_000_000_000, input)).rejects.toThrow(NotFoundError);
    const issued = await createPersonalAccessTokenAsAdmin(userContext(handle.db, admin), user.id, input);
    expect(issued.record.userId).toBe(user.id);
  });

  it("lists a user's own tokens; admins list anyone's; others get 401", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const user = await createTestUser(handle.db);
    const other = await createTestUser(handle.db);
    const kept = await insertPersonalAccessToken(handle.db, user.id, { name: "kept", scopes: ["api"] }, now);
    const gone = await insertPersonalAccessToken(handle.db, user.id, { name: "gone", scopes: ["api"] }, now);
    const expired = await insertPersonalAccessToken(handle.db, user.id, { name: "old", scopes: ["api"], expiresAt: "2030-06-16" }, now);
    await insertPersonalAccessToken(handle.db, other.id, { name: "theirs", scopes: ["api"] }, now);
    await revokePersonalAccessToken(createContext(handle.db, { kind: "user", user, scopes: null }), gone.record.id);

    const at = (actor: typeof user, when = now) => ({ ...userContext(handle.db, actor), now: when });
    const ids = async (ctx: ReturnType<typeof at>, filters = {}) =>
      (await listPersonalAccessTokens(ctx, filters, page)).items.map((token) => token.id);
    expect(await ids(at(user))).toEqual([kept.record.id, gone.record.id, expired.record.id]);
    expect(await ids(at(user), { userId: user.id, revoked: true })).toEqual([gone.record.id]);
    expect(await ids(at(user, new Date("2030-06-17T00:00:00Z")), { state: "active" })).toEqual([kept.record.id]);
    expect(await ids(at(user, new Date("2030-06-17T00:00:00Z")), { state: "inactive" })).toEqual([gone.record.id, expired.record.id]);
    expect(await ids(at(user), { search: "KEP" })).toEqual([kept.record.id]);
    expect(await ids(at(admin), { userId: user.id })).toEqual([kept.record.id, gone.record.id, expired.record.id]);
    expect((await ids(at(admin))).length).toBeGreaterThanOrEqual(4);
    await expect(listPersonalAccessTokens(at(user), { userId: other.id }, page)).rejects.toThrow(UnauthorizedError);
    await expect(listPersonalAccessTokens(anonymousTestContext(handle.db), {}, page)).rejects.toThrow(UnauthorizedError);
  });

  it("revokes for the owner or an admin; to anyone else the token does not exist", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const first = await insertPersonalAccessToken(handle.db, owner.id, { name: "a", scopes: ["api"] }, now);
    const second = await insertPersonalAccessToken(handle.db, owner.id, { name: "b", scopes: ["api"] }, now);
    const revokedState = async (id: number) =>
      (await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)))[0]?.revoked;

    await expect(revokePersonalAccessToken(userContext(handle.db, stranger), first.record.id)).rejects.toThrow(
      "404 Personal Access Token Not Found",
    );
    expect(await revokedState(first.record.id)).toBe(false);
    await revokePersonalAccessToken(userContext(handle.db, owner), first.record.id);
    expect(await revokedState(first.record.id)).toBe(true);
    await revokePersonalAccessToken(userContext(handle.db, admin), second.record.id);
    expect(await revokedState(second.record.id)).toBe(true);
    await expect(revokePersonalAccessToken(userContext(handle.db, admin), 2_000_000_000)).rejects.toThrow(NotFoundError);
  });
});
