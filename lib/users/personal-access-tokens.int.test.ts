import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { personalAccessTokens } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { BadRequestError, ForbiddenError, MethodNotAllowedError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { createContext } from "@/lib/context";
import {
  createOwnPersonalAccessToken,
  createPersonalAccessTokenAsAdmin,
  findPersonalAccessTokenByValue,
  insertPersonalAccessToken,
  isTokenExpired,
  listPersonalAccessTokens,
  getCurrentPersonalAccessToken,
  revokeCurrentPersonalAccessToken,
  revokePersonalAccessToken,
  rotateCurrentPersonalAccessToken,
  rotatePersonalAccessToken,
  serializePersonalAccessToken,
} from "./personal-access-tokens";
import type { UserRow } from "@/lib/db/schema";
import type { IssuedPersonalAccessToken } from "./personal-access-tokens";

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
    await expect(insertPersonalAccessToken(handle.db, user.id, { name: " ", scopes: [] }, now)).rejects.toMatchObject({
      errors: { name: ["can't be blank"], scopes: ["must name at least one known scope"] },
    });
    await expect(insertPersonalAccessToken(handle.db, user.id, { name: "x".repeat(256), scopes: ["api"] }, now)).rejects.toMatchObject({
      errors: { name: ["is too long (maximum is 255 characters)"] },
    });
    expect(await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, user.id))).toEqual([]);
  });

  it("people create their own tokens; the sudo scope is an administrator's", async () => {
    const person = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const refusal = await createOwnPersonalAccessToken(userContext(handle.db, person), { name: "s", scopes: ["api", "sudo"] }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).body()).toEqual({ message: { scopes: ["can only contain available scopes"] } });
    expect((await createOwnPersonalAccessToken(userContext(handle.db, person), { name: "a", scopes: ["api"] })).record.scopes).toEqual(["api"]);
    expect((await createOwnPersonalAccessToken(userContext(handle.db, admin), { name: "s", scopes: ["api", "sudo"] })).record.scopes).toEqual(["api", "sudo"]);
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

  /** A context as a request with `issued` would have it. */
  const withToken = (user: UserRow, issued: IssuedPersonalAccessToken) => ({
    ...createContext(handle.db, { kind: "user", user, scopes: new Set(issued.record.scopes), personalAccessTokenId: issued.record.id }),
    now,
  });
  const stored = async (id: number) => (await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)))[0]!;

  it("a token reads and revokes itself, whatever its scopes; other credentials are told it takes a token", async () => {
    const user = await createTestUser(handle.db);
    const issued = await insertPersonalAccessToken(handle.db, user.id, { name: "self", scopes: ["read_repository"] }, now);
    expect((await getCurrentPersonalAccessToken(withToken(user, issued))).id).toBe(issued.record.id);
    const session = { ...userContext(handle.db, user), now };
    const notAToken = new BadRequestError("400 Bad request - This endpoint requires token type to be a personal access token");
    await expect(getCurrentPersonalAccessToken(session)).rejects.toThrow(notAToken);
    await expect(revokeCurrentPersonalAccessToken(session)).rejects.toThrow(notAToken);
    await revokeCurrentPersonalAccessToken(withToken(user, issued));
    expect((await stored(issued.record.id)).revoked).toBe(true);
  });

  it("rotating revokes the token and issues one with its name and scopes, shown once, for a week unless told otherwise", async () => {
    const user = await createTestUser(handle.db);
    const issued = await insertPersonalAccessToken(handle.db, user.id, { name: "deploy", scopes: ["read_api", "read_repository"], expiresAt: "2030-07-01" }, now);
    const rotated = await rotatePersonalAccessToken({ ...userContext(handle.db, user), now }, issued.record.id, {});
    expect(rotated.record).toMatchObject({ userId: user.id, name: "deploy", scopes: ["read_api", "read_repository"], expiresAt: "2030-06-22", revoked: false });
    expect(rotated.record.id).not.toBe(issued.record.id);
    expect(rotated.token).toMatch(/^glpat-/);
    expect((await stored(issued.record.id)).revoked).toBe(true);
    expect((await findPersonalAccessTokenByValue(handle.db, rotated.token))?.token.id).toBe(rotated.record.id);
    expect(serializePersonalAccessToken(rotated, now)).toMatchObject({ token: rotated.token, active: true, expires_at: "2030-06-22" });

    const again = await rotatePersonalAccessToken({ ...userContext(handle.db, user), now }, rotated.record.id, { expiresAt: "2031-01-01" });
    expect(again.record.expiresAt).toBe("2031-01-01");
    await expect(rotatePersonalAccessToken({ ...userContext(handle.db, user), now }, rotated.record.id, {})).rejects.toThrow(
      new BadRequestError("400 Bad request - Token already revoked"),
    );
    await expect(rotatePersonalAccessToken({ ...userContext(handle.db, user), now }, again.record.id, { expiresAt: "2030-06-15" })).rejects.toThrow(
      BadRequestError,
    );
    // A refused rotation changes nothing.
    expect((await stored(again.record.id)).revoked).toBe(false);
  });

  it("only the owner or an admin rotates; only admins learn that a token does not exist", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const issued = await insertPersonalAccessToken(handle.db, owner.id, { name: "t", scopes: ["api"] }, now);
    await expect(rotatePersonalAccessToken({ ...userContext(handle.db, stranger), now }, issued.record.id, {})).rejects.toThrow(UnauthorizedError);
    await expect(rotatePersonalAccessToken({ ...userContext(handle.db, stranger), now }, 2_147_483_647, {})).rejects.toThrow(UnauthorizedError);
    await expect(rotatePersonalAccessToken({ ...userContext(handle.db, admin), now }, 2_147_483_647, {})).rejects.toThrow(new NotFoundError());
    expect((await stored(issued.record.id)).revoked).toBe(false);
    const byAdmin = await rotatePersonalAccessToken({ ...userContext(handle.db, admin), now }, issued.record.id, {});
    expect(byAdmin.record.userId).toBe(owner.id);
  });

  it("two rotations of one token at once give one successor", async () => {
    const user = await createTestUser(handle.db);
    const issued = await insertPersonalAccessToken(handle.db, user.id, { name: "race", scopes: ["api"] }, now);
    const ctx = { ...userContext(handle.db, user), now };
    const outcomes = await Promise.allSettled([rotatePersonalAccessToken(ctx, issued.record.id, {}), rotatePersonalAccessToken(ctx, issued.record.id, {})]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const successors = await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, user.id));
    expect(successors.filter((token) => !token.revoked)).toHaveLength(1);
  });

  it("a token rotates itself; other credentials cannot (405)", async () => {
    const user = await createTestUser(handle.db);
    const issued = await insertPersonalAccessToken(handle.db, user.id, { name: "me", scopes: ["api"] }, now);
    const rotated = await rotateCurrentPersonalAccessToken(withToken(user, issued), {});
    expect(rotated.record).toMatchObject({ name: "me", scopes: ["api"] });
    expect((await stored(issued.record.id)).revoked).toBe(true);
    await expect(rotateCurrentPersonalAccessToken({ ...userContext(handle.db, user), now }, {})).rejects.toThrow(MethodNotAllowedError);
  });
});
