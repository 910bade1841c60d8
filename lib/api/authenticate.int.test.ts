import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { personalAccessTokens, users } from "@/lib/db/schema";
import { ForbiddenError, InvalidTokenError, UnauthorizedError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser } from "@/lib/testing/fixtures";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { authenticateToken, findPresentedToken } from "./authenticate";

const now = new Date("2030-06-15T12:00:00Z");


describe("findPresentedToken", () => {
  const request = (headers: Record<string, string> = {}) => new Request("http://x/api/v4/user", { headers });
  it("reads the four accepted places", () => {
    expect(findPresentedToken(request({ "PRIVATE-TOKEN": "a" }), new URL("http://x/"))).toEqual({ value: "a", bearer: false });
    expect(findPresentedToken(request({ Authorization: "Bearer b" }), new URL("http://x/"))).toEqual({ value: "b", bearer: true });
    expect(findPresentedToken(request({ Authorization: "bearer  b  " }), new URL("http://x/"))).toEqual({ value: "b", bearer: true });
    expect(findPresentedToken(request(), new URL("http://x/?private_token=c"))).toEqual({ value: "c", bearer: false });
    expect(findPresentedToken(request(), new URL("http://x/?access_token=d"))).toEqual({ value: "d", bearer: true });
  });
  it("finds nothing without credentials or with other schemes", () => {
    expect(findPresentedToken(request(), new URL("http://x/"))).toBeNull();
    expect(findPresentedToken(request({ Authorization: "Basic dXNlcjpwYXNz" }), new URL("http://x/"))).toBeNull();
    expect(findPresentedToken(request({ "PRIVATE-TOKEN": "" }), new URL("http://x/?private_token="))).toBeNull();
  });
});

describe.each(testDatabases())("token resolution on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("anonymous without a token; 401 for a token nobody issued", async () => {
    expect(await authenticateToken(handle.db, null, now)).toEqual({ kind: "anonymous" });
    const error = await apiFailure(authenticateToken(handle.db, { value: "glpat-unknown", bearer: false }, now));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect([error.status, error.body()]).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("resolves a valid token to its user with the token's scopes, either way it is presented", async () => {
    const user = await createTestUser(handle.db);
    const { token } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["read_api", "read_user"] }, now);
    for (const bearer of [false, true]) {
      const actor = await authenticateToken(handle.db, { value: token, bearer }, now);
      expect(actor.kind).toBe("user");
      if (actor.kind !== "user") continue;
      expect(actor.user.id).toBe(user.id);
      expect([...(actor.scopes ?? [])]).toEqual(["read_api", "read_user"]);
    }
  });

  it("records when a token was last used", async () => {
    const user = await createTestUser(handle.db);
    const { token, record } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["api"] }, now);
    await authenticateToken(handle.db, { value: token, bearer: false }, now);
    await expect
      .poll(async () => (await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, record.id)))[0]?.lastUsedAt)
      .toEqual(now);
  });

  it("a revoked token is 401 invalid_token with GitLab's description", async () => {
    const user = await createTestUser(handle.db);
    const { token, record } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["api"] }, now);
    await handle.db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, record.id));
    const error = await apiFailure(authenticateToken(handle.db, { value: token, bearer: true }, now));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect([error.status, error.body()]).toEqual([
      401,
      { error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." },
    ]);
    expect(error.headers()["WWW-Authenticate"]).toContain('error="invalid_token"');
  });

  it("an expired token is 401 invalid_token from its expiry day on", async () => {
    const user = await createTestUser(handle.db);
    const { token } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["api"], expiresAt: "2030-06-16" }, now);
    expect((await authenticateToken(handle.db, { value: token, bearer: false }, new Date("2030-06-15T23:59:59Z"))).kind).toBe("user");
    const error = await apiFailure(authenticateToken(handle.db, { value: token, bearer: false }, new Date("2030-06-16T00:00:00Z")));
    expect([error.status, error.body()]).toEqual([
      401,
      { error: "invalid_token", error_description: "Token is expired. You can either do re-authorization or token refresh." },
    ]);
  });

  it("a blocked user's token is 403 with the reason", async () => {
    const user = await createTestUser(handle.db);
    const { token } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["api"] }, now);
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    const error = await apiFailure(authenticateToken(handle.db, { value: token, bearer: false }, now));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect([error.status, error.body()]).toEqual([403, { message: "403 Forbidden - Your account has been blocked." }]);
  });
});
