import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { oauthAccessTokens, oauthApplications, users, type OAuthApplicationRow, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { InvalidTokenError } from "@/lib/errors";
import { testDatabases } from "@/lib/testing/databases";
import { createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createGroup } from "@/lib/groups/groups";
import { addGroupMember } from "@/lib/groups/members";
import {
  authorizeCode,
  expectOAuthError,
  formRequest,
  invalidGrantBody,
  oauthFailure,
  oauthFixtureForSuite,
  registerApplication,
  testRedirectUri,
  token,
  type TokenBody,
} from "@/lib/testing/oauth";
import { renewApplicationSecretAsAdmin } from "./applications";
import { resolveOAuthAccessToken } from "./api-token";
import { answerResponse } from "@/lib/http/answer";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { renderOAuthError } from "./errors";
import { getTokenInfo, getUserInfo, introspectToken, invalidTokenError, revokeToken } from "./token-info";

describe.each(testDatabases())("tokens on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);

  const now = () => new Date();

  async function codeTokens(application: OAuthApplicationRow, secret: string, scope = "api read_user openid"): Promise<TokenBody> {
    const user = await createTestUser(fixture.db);
    const { code } = await authorizeCode(fixture.db, user, application, { scope });
    return token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret });
  }

  const refresh = (application: OAuthApplicationRow, secret: string | undefined, refreshToken: string, extra: Record<string, string> = {}) =>
    token(fixture.db, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: application.uid,
      ...(secret ? { client_secret: secret } : {}),
      ...extra,
    });

  const isActive = async (accessToken: string) => {
    try {
      await getTokenInfo(fixture.db, accessToken, now());
      return true;
    } catch {
      return false;
    }
  };

  describe("refresh", () => {
    it("rotates: a new pair works, the old pair is dead at once", async () => {
      const { application, secret } = await registerApplication(fixture);
      const first = await codeTokens(application, secret, "api read_user");
      const second = await refresh(application, secret, first.refresh_token!);
      expect(Object.keys(second)).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at"]);
      expect(second).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api read_user" });
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(await isActive(first.access_token)).toBe(false);
      expect(await isActive(second.access_token)).toBe(true);
      const third = await refresh(application, secret, second.refresh_token!);
      expect(await isActive(third.access_token)).toBe(true);
    });

    it("treats a rotated refresh token presented again as reuse: invalid_grant and the whole grant revoked", async () => {
      const { application, secret } = await registerApplication(fixture);
      const first = await codeTokens(application, secret);
      const second = await refresh(application, secret, first.refresh_token!);
      const third = await refresh(application, secret, second.refresh_token!);

      const reuse = await expectOAuthError(refresh(application, secret, first.refresh_token!), "invalid_grant");
      expect(reuse.body()).toEqual(invalidGrantBody);
      for (const pair of [first, second, third]) expect(await isActive(pair.access_token)).toBe(false);
      // The newest refresh token, the legitimate client's, is dead too.
      await expectOAuthError(refresh(application, secret, third.refresh_token!), "invalid_grant");
    });

    it("works after the access token expired", async () => {
      const { application, secret } = await registerApplication(fixture);
      const first = await codeTokens(application, secret, "api");
      const later = new Date(Date.now() + 7201_000);
      await expectOAuthError(getTokenInfo(fixture.db, first.access_token, later), "invalid_token", 401);
      const body = await token(
        fixture.db,
        { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: application.uid, client_secret: secret },
        { now: later },
      );
      expect((await getTokenInfo(fixture.db, body.access_token, later)).expires_in).toBe(7200);
    });

    it("may narrow the scopes but never widen them", async () => {
      const { application, secret } = await registerApplication(fixture);
      const first = await codeTokens(application, secret, "api read_user");
      const widened = await expectOAuthError(refresh(application, secret, first.refresh_token!, { scope: "api read_user openid" }), "invalid_scope");
      expect(widened.description).toBe("The requested scope is invalid, unknown, or malformed.");
      // The refusal did not spend the refresh token.
      const narrowed = await refresh(application, secret, first.refresh_token!, { scope: "read_user" });
      expect(narrowed.scope).toBe("read_user");
      await expectOAuthError(refresh(application, secret, narrowed.refresh_token!, { scope: "api" }), "invalid_scope");
    });

    it("belongs to its client: another client, no client or no secret is refused", async () => {
      const { application, secret } = await registerApplication(fixture);
      const other = await registerApplication(fixture);
      const first = await codeTokens(application, secret);
      await expectOAuthError(refresh(other.application, other.secret, first.refresh_token!), "invalid_grant");
      await expectOAuthError(token(fixture.db, { grant_type: "refresh_token", refresh_token: first.refresh_token! }), "invalid_grant");
      await expectOAuthError(refresh(application, undefined, first.refresh_token!), "invalid_client", 401);
      await expectOAuthError(refresh(application, "gloas-wrong", first.refresh_token!), "invalid_client", 401);
      await expectOAuthError(refresh(application, secret, "0".repeat(64)), "invalid_grant");
      const missing = await expectOAuthError(token(fixture.db, { grant_type: "refresh_token", client_id: application.uid, client_secret: secret }), "invalid_request");
      expect(missing.description).toBe("Missing required parameter: refresh_token.");
      // None of this spent the legitimate refresh token.
      expect((await refresh(application, secret, first.refresh_token!)).token_type).toBe("Bearer");
    });

    it("lets a public client refresh with its client_id alone", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const verifier = "v".repeat(43);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: verifier, code_challenge_method: "plain" });
      const first = await token(fixture.db, {
        grant_type: "authorization_code",
        code,
        redirect_uri: testRedirectUri,
        client_id: application.uid,
        code_verifier: verifier,
      });
      const second = await refresh(application, undefined, first.refresh_token!);
      expect(await isActive(second.access_token)).toBe(true);
    });
  });

  describe("concurrent presentations", () => {
    it("redeems a code at most once when two requests race, and revokes what the winner got", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      const params = { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret };
      const results = await Promise.allSettled([token(fixture.db, params), token(fixture.db, params)]);
      const won = results.filter((result) => result.status === "fulfilled");
      expect(won).toHaveLength(1);
      expect(results.filter((result) => result.status === "rejected").map((result) => (result as PromiseRejectedResult).reason.error)).toEqual([
        "invalid_grant",
      ]);
      expect(await isActive((won[0] as PromiseFulfilledResult<TokenBody>).value.access_token)).toBe(false);
    });

    it("rotates a refresh token at most once when two requests race", async () => {
      const { application, secret } = await registerApplication(fixture);
      const first = await codeTokens(application, secret, "api");
      const results = await Promise.allSettled([refresh(application, secret, first.refresh_token!), refresh(application, secret, first.refresh_token!)]);
      const won = results.filter((result) => result.status === "fulfilled") as PromiseFulfilledResult<TokenBody>[];
      expect(won).toHaveLength(1);
      // The loser's presentation is a reuse: the family is revoked, the winner's pair included.
      expect(await isActive(won[0]!.value.access_token)).toBe(false);
      await expectOAuthError(refresh(application, secret, won[0]!.value.refresh_token!), "invalid_grant");
    });
  });

  describe("password grant", () => {
    const password = (username: string, pass: string, extra: Record<string, string> = {}) =>
      token(fixture.db, { grant_type: "password", username, password: pass, ...extra });

    it("defaults the scope to api and refreshes without a client", async () => {
      const user = await createTestUser(fixture.db);
      const body = await password(user.username, testPassword);
      expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at"]);
      expect(body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api" });
      expect(await getTokenInfo(fixture.db, body.access_token, now())).toMatchObject({ application: { uid: null }, scope: ["api"] });
      const refreshed = await token(fixture.db, { grant_type: "refresh_token", refresh_token: body.refresh_token! });
      expect(refreshed.scope).toBe("api");
    });

    it("checks the client when one is named and keeps to its scopes", async () => {
      const { application, secret } = await registerApplication(fixture, { scopes: ["read_user", "openid"] });
      const user = await createTestUser(fixture.db);
      await expectOAuthError(password(user.username, testPassword, { client_id: application.uid, client_secret: secret }), "invalid_scope");
      await expectOAuthError(password(user.username, testPassword, { client_id: application.uid, client_secret: secret, scope: "read_user api" }), "invalid_scope");
      await expectOAuthError(password(user.username, testPassword, { scope: "api bogus" }), "invalid_scope");
      await expectOAuthError(password(user.username, testPassword, { client_id: application.uid, client_secret: "nope", scope: "read_user" }), "invalid_client", 401);
      await expectOAuthError(password(user.username, testPassword, { client_id: application.uid, scope: "read_user" }), "invalid_client", 401);
      const body = await password(user.username, testPassword, { client_id: application.uid, client_secret: secret, scope: "read_user openid" });
      expect(body.scope).toBe("read_user openid");
      expect(body.id_token).toEqual(expect.any(String));
    });

    it("answers the same invalid_grant for two-factor, blocked, unconfirmed, wrong password and unknown users", async () => {
      const twoFactor = await createTestUser(fixture.db);
      await fixture.db.update(users).set({ otpSecret: "JBSWY3DPEHPK3PXP", otpEnabledAt: now() }).where(eq(users.id, twoFactor.id));
      const blocked = await createTestUser(fixture.db);
      await fixture.db.update(users).set({ state: "blocked" }).where(eq(users.id, blocked.id));
      // Its link went out four days ago: past the three days an unconfirmed account may sign in (soft confirmation).
      const unconfirmed = await createTestUser(fixture.db, { confirmed: false });
      await fixture.db.update(users).set({ confirmationSentAt: new Date(Date.now() - 4 * 86_400_000) }).where(eq(users.id, unconfirmed.id));
      const someone = await createTestUser(fixture.db);

      const failures = [
        await oauthFailure(password(twoFactor.username, testPassword)),
        await oauthFailure(password(blocked.username, testPassword)),
        await oauthFailure(password(unconfirmed.username, testPassword)),
        await oauthFailure(password(someone.username, "wrong password")),
        await oauthFailure(password("nobody_at_all", testPassword)),
      ];
      for (const failure of failures) {
        const response = answerResponse(renderOAuthError(failure));
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual(invalidGrantBody);
        // A 400 carries no authentication challenge, so clients read the error from the body.
        expect(response.headers.get("www-authenticate")).toBeNull();
        expect(response.headers.get("cache-control")).toBe("no-store");
      }
    });

    it("locks the account after repeated failures, even for the right password", async () => {
      const user = await createTestUser(fixture.db);
      const start = now();
      for (let attempt = 0; attempt < env.SIGN_IN_MAX_ATTEMPTS; attempt++) {
        await expectOAuthError(token(fixture.db, { grant_type: "password", username: user.username, password: `wrong ${attempt}` }, { now: start }), "invalid_grant");
      }
      const locked = await oauthFailure(token(fixture.db, { grant_type: "password", username: user.username, password: testPassword }, { now: start }));
      expect(locked.body()).toEqual(invalidGrantBody);
    });

    it("requires username and password", async () => {
      await expectOAuthError(token(fixture.db, { grant_type: "password", password: "x" }), "invalid_request");
      await expectOAuthError(token(fixture.db, { grant_type: "password", username: "x" }), "invalid_request");
    });
  });

  describe("token info", () => {
    it("answers GitLab's exact body", async () => {
      const { application, secret } = await registerApplication(fixture);
      const issued = new Date();
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { scope: "api read_user" });
      const body = await token(
        fixture.db,
        { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret },
        { now: issued },
      );
      const info = await getTokenInfo(fixture.db, body.access_token, new Date(issued.getTime() + 15_000));
      expect(info).toStrictEqual({
        resource_owner_id: user.id,
        scope: ["api", "read_user"],
        expires_in: 7185,
        application: { uid: application.uid },
        created_at: Math.floor(issued.getTime() / 1000),
        scopes: ["api", "read_user"],
        expires_in_seconds: 7185,
      });
      expect(JSON.stringify(info)).toBe(
        `{"resource_owner_id":${user.id},"scope":["api","read_user"],"expires_in":7185,"application":{"uid":"${application.uid}"},"created_at":${Math.floor(issued.getTime() / 1000)},"scopes":["api","read_user"],"expires_in_seconds":7185}`,
      );
    });

    it("answers 401 invalid_token with state unauthorized for a missing, unknown, expired or revoked token", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      await revokeToken(fixture.db, formRequest("/oauth/revoke", {}), { token: body.access_token, client_id: application.uid, client_secret: secret }, now());
      const fresh = await codeTokens(application, secret, "api");
      const blockedOwner = await codeTokens(application, secret, "api");
      const info = await getTokenInfo(fixture.db, blockedOwner.access_token, now());
      // Blocked by hand, so this process forgets its checks as the block verb does (the notification comes later).
      await fixture.db.update(users).set({ state: "blocked" }).where(eq(users.id, info.resource_owner_id!));
      forgetTokenChecks(fixture.db, `user:${info.resource_owner_id!}`);
      for (const [value, at] of [
        [null, now()],
        ["f".repeat(64), now()],
        [body.access_token, now()],
        [fresh.access_token, new Date(Date.now() + 7201_000)],
        [blockedOwner.access_token, now()],
      ] as const) {
        const failure = await expectOAuthError(getTokenInfo(fixture.db, value, at), "invalid_token", 401);
        const response = answerResponse(renderOAuthError(failure));
        expect(await response.json()).toEqual({ error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" });
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+", error="invalid_token", error_description="The access token is invalid"$/);
      }
      expect(answerResponse(renderOAuthError(invalidTokenError())).status).toBe(401);
    });
  });

  describe("revocation (RFC 7009)", () => {
    const revoke = (params: Record<string, string>) => revokeToken(fixture.db, formRequest("/oauth/revoke", params), params, now());

    it("answers success for an unknown token", async () => {
      await expect(revoke({ token: "0".repeat(64) })).resolves.toBeUndefined();
    });

    it("needs the owning client for a confidential application's token", async () => {
      const { application, secret } = await registerApplication(fixture);
      const other = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      const attempts: Record<string, string>[] = [
        { token: body.access_token },
        { token: body.access_token, client_id: other.application.uid, client_secret: other.secret },
        { token: body.refresh_token!, token_type_hint: "refresh_token" },
      ];
      for (const params of attempts) {
        const refused = await expectOAuthError(revoke(params), "unauthorized_client", 403);
        expect(refused.body()).toEqual({ error: "unauthorized_client", error_description: "You are not authorized to revoke this token" });
      }
      await expectOAuthError(revoke({ token: body.access_token, client_id: application.uid, client_secret: "bad" }), "invalid_client", 401);
      expect(await isActive(body.access_token)).toBe(true);

      await revoke({ token: body.refresh_token!, token_type_hint: "refresh_token", client_id: application.uid, client_secret: secret });
      // Revoking either half of the pair revokes both.
      expect(await isActive(body.access_token)).toBe(false);
      await expectOAuthError(refresh(application, secret, body.refresh_token!), "invalid_grant");
    });

    it("revokes a public application's token, and a token issued without a client, without client credentials", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const verifier = "w".repeat(43);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: verifier, code_challenge_method: "plain" });
      const body = await token(fixture.db, {
        grant_type: "authorization_code",
        code,
        redirect_uri: testRedirectUri,
        client_id: application.uid,
        code_verifier: verifier,
      });
      await revoke({ token: body.access_token });
      expect(await isActive(body.access_token)).toBe(false);
      await expectOAuthError(refresh(application, undefined, body.refresh_token!), "invalid_grant");

      const ropc = await token(fixture.db, { grant_type: "password", username: user.username, password: testPassword });
      await revoke({ token: ropc.access_token });
      expect(await isActive(ropc.access_token)).toBe(false);
    });

    it("requires the token parameter", async () => {
      await expectOAuthError(revoke({}), "invalid_request");
    });
  });

  describe("introspection (RFC 7662)", () => {
    const introspect = (params: Record<string, string>, options: { basic?: [string, string]; bearer?: string } = {}) =>
      introspectToken(fixture.db, formRequest("/oauth/introspect", params, options), params, now());

    it("describes an active token to its own client", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api read_user");
      const info = await getTokenInfo(fixture.db, body.access_token, now());
      expect(await introspect({ token: body.access_token }, { basic: [application.uid, secret] })).toEqual({
        active: true,
        scope: "api read_user",
        client_id: application.uid,
        username: expect.any(String),
        token_type: "Bearer",
        exp: info.created_at + 7200,
        iat: info.created_at,
        sub: String(info.resource_owner_id),
        iss: "http://localhost:3000",
      });
      // A bearer token of the same application may ask too.
      const other = await codeTokens(application, secret, "api");
      expect(await introspect({ token: body.access_token }, { bearer: other.access_token })).toMatchObject({ active: true });
    });

    it("answers {active:false} for other clients' tokens, revoked, expired or unknown tokens", async () => {
      const { application, secret } = await registerApplication(fixture);
      const other = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      expect(await introspect({ token: body.access_token }, { basic: [other.application.uid, other.secret] })).toEqual({ active: false });
      expect(await introspect({ token: "0".repeat(64) }, { basic: [application.uid, secret] })).toEqual({ active: false });
      const expired = await introspectToken(
        fixture.db,
        formRequest("/oauth/introspect", { token: body.access_token }, { basic: [application.uid, secret] }),
        { token: body.access_token },
        new Date(Date.now() + 7201_000),
      );
      expect(expired).toEqual({ active: false });
      await revokeToken(fixture.db, formRequest("/oauth/revoke", {}), { token: body.access_token, client_id: application.uid, client_secret: secret }, now());
      expect(await introspect({ token: body.access_token }, { basic: [application.uid, secret] })).toEqual({ active: false });
    });

    it("requires the caller to authenticate", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      await expectOAuthError(introspect({ token: body.access_token }), "invalid_request");
      await expectOAuthError(introspect({ token: body.access_token }, { basic: [application.uid, "wrong"] }), "invalid_client", 401);
      await expectOAuthError(introspect({ token: body.access_token }, { bearer: body.access_token }), "invalid_token", 401);
      await expectOAuthError(introspect({ token: body.access_token }, { bearer: "f".repeat(64) }), "invalid_token", 401);
    });
  });

  describe("userinfo", () => {
    it("needs the openid scope", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      const refused = await expectOAuthError(getUserInfo(fixture.db, body.access_token, now()), "invalid_scope", 403);
      expect(refused.body()).toEqual({
        error: "invalid_scope",
        error_description: 'Access to this resource requires scope "openid".',
        state: "forbidden",
      });
      await expectOAuthError(getUserInfo(fixture.db, "f".repeat(64), now()), "invalid_token", 401);
    });

    const userInfoFor = async (user: UserRow, scope: string) => {
      const { application, secret } = await registerApplication(fixture);
      const { code } = await authorizeCode(fixture.db, user, application, { scope });
      const body = await token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret });
      return getUserInfo(fixture.db, body.access_token, now());
    };

    it("answers the user's claims with sub as a string, and the confirmed address with the email scope", async () => {
      const user = await createTestUser(fixture.db);
      expect(await userInfoFor(user, "openid email")).toEqual({
        sub: String(user.id),
        name: user.name,
        nickname: user.username,
        preferred_username: user.username,
        email: user.email,
        email_verified: true,
        profile: `${env.EXTERNAL_URL}/${user.username}`,
        picture: `${env.EXTERNAL_URL}/-/avatars/${user.id}`,
        groups: [],
      });
    });

    it("names the user's groups as GitLab: every group they belong to and those below in userinfo, their own memberships by role, groups_direct in the ID token", async () => {
      const user = await createTestUser(fixture.db);
      const owner = await createTestUser(fixture.db);
      const ownerCtx = userContext(fixture.db, owner);
      const root = await createGroup(ownerCtx, { name: "Claims", path: `claims-${uniqueSuffix()}` });
      const platform = await createGroup(ownerCtx, { name: "Platform", path: "platform", parentId: root.group.id });
      const api = await createGroup(ownerCtx, { name: "API", path: "api", parentId: platform.group.id });
      const mine = await createGroup(userContext(fixture.db, user), { name: "Mine", path: `mine-${uniqueSuffix()}` });
      await addGroupMember(ownerCtx, String(platform.group.id), { userId: user.id, accessLevel: 30 });
      const info = await userInfoFor(user, "openid");
      expect(info).toMatchObject({
        groups: [mine.group.fullPath, platform.group.fullPath, api.group.fullPath].sort(),
        "https://gitlab.org/claims/groups/owner": [mine.group.fullPath],
        "https://gitlab.org/claims/groups/developer": [platform.group.fullPath],
      });
      expect(info).not.toHaveProperty("https://gitlab.org/claims/groups/maintainer");
      expect(info).not.toHaveProperty("groups_direct");
      const { application, secret } = await registerApplication(fixture);
      const { code } = await authorizeCode(fixture.db, user, application, { scope: "openid" });
      const body = await token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret });
      const claims = decodeJwt(body.id_token!);
      expect(claims.groups_direct).toEqual([mine.group.fullPath, platform.group.fullPath].sort());
      expect(claims).not.toHaveProperty("groups");
    });

    it("says email_verified false for an address nobody confirmed, and gives neither claim without the email scope", async () => {
      const unconfirmed = await createTestUser(fixture.db, { confirmed: false });
      // Within its first three days an unconfirmed account signs in (soft confirmation), so it can use the password
      // grant; the authorization endpoint refuses it (see authorization-code.int.test.ts).
      await fixture.db.update(users).set({ confirmationSentAt: now() }).where(eq(users.id, unconfirmed.id));
      const passwordUserInfo = async (scope: string) => {
        const { application, secret } = await registerApplication(fixture, { scopes: ["openid", "profile", "email"] });
        const body = await token(fixture.db, {
          grant_type: "password",
          username: unconfirmed.username,
          password: testPassword,
          scope,
          client_id: application.uid,
          client_secret: secret,
        });
        return getUserInfo(fixture.db, body.access_token, now());
      };
      expect(await passwordUserInfo("openid email")).toMatchObject({ email: unconfirmed.email, email_verified: false });
      const withoutEmail = await passwordUserInfo("openid profile");
      expect(withoutEmail).not.toHaveProperty("email");
      expect(withoutEmail).not.toHaveProperty("email_verified");
      expect(withoutEmail).toMatchObject({ sub: String(unconfirmed.id), preferred_username: unconfirmed.username });
      const confirmed = await createTestUser(fixture.db);
      expect(Object.keys(await userInfoFor(confirmed, "openid"))).toEqual(["sub", "name", "nickname", "preferred_username", "profile", "picture", "groups"]);
    });
  });

  describe("OAuth access tokens on /api/v4", () => {
    it("resolve to the user with the token's scopes", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "read_user openid");
      const actor = await resolveOAuthAccessToken(fixture.db, body.access_token, now());
      expect(actor).toMatchObject({ kind: "user" });
      expect(actor?.kind === "user" && [...(actor.scopes ?? [])]).toEqual(["read_user", "openid"]);
      expect(await resolveOAuthAccessToken(fixture.db, "f".repeat(64), now())).toBeUndefined();
    });

    it("answer GitLab's messages for expired and revoked tokens", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api");
      const expired = resolveOAuthAccessToken(fixture.db, body.access_token, new Date(Date.now() + 7201_000));
      await expect(expired).rejects.toBeInstanceOf(InvalidTokenError);
      await expect(expired).rejects.toMatchObject({ description: "Token is expired. You can either do re-authorization or token refresh." });
      await refresh(application, secret, body.refresh_token!);
      const revoked = resolveOAuthAccessToken(fixture.db, body.access_token, now());
      await expect(revoked).rejects.toBeInstanceOf(InvalidTokenError);
      await expect(revoked).rejects.toMatchObject({ description: "Token was revoked. You have to re-authorize from the user." });
    });
  });

  describe("storage", () => {
    it("keeps access and refresh tokens only as digests", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await codeTokens(application, secret, "api openid");
      const rows = await fixture.db.select().from(oauthAccessTokens);
      const stored = JSON.stringify(rows);
      for (const value of [body.access_token, body.refresh_token!]) {
        expect(stored).not.toContain(value);
        for (const row of rows) for (const column of Object.values(row)) expect(column).not.toBe(value);
      }
    });

    it("keeps client secrets only as digests, and a renewed secret replaces the old one at once", async () => {
      const { application, secret } = await registerApplication(fixture);
      const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.id, application.id));
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(secret.slice("gloas-".length));

      const renewed = await renewApplicationSecretAsAdmin(userContext(fixture.db, fixture.admin), application.id);
      expect(renewed.secret).not.toBe(secret);
      const user = await createTestUser(fixture.db);
      await expectOAuthError(
        token(fixture.db, { grant_type: "password", username: user.username, password: testPassword, client_id: application.uid, client_secret: secret }),
        "invalid_client",
        401,
      );
      const body = await token(fixture.db, {
        grant_type: "password",
        username: user.username,
        password: testPassword,
        client_id: application.uid,
        client_secret: renewed.secret,
      });
      expect(body.scope).toBe("api");
      const [after] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.id, application.id));
      expect(JSON.stringify(after)).not.toContain(renewed.secret);
    });
  });
});
