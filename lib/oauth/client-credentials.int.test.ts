import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { authenticateToken } from "@/lib/api/authenticate";
import { oauthAccessTokens, oauthGrants } from "@/lib/db/schema";
import { InvalidTokenError, UnauthorizedError } from "@/lib/errors";
import { authorizeGitAccess } from "@/lib/git/access";
import { answerResponse } from "@/lib/http/answer";
import { createProject } from "@/lib/projects/projects";
import { testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { authorizeCode, expectOAuthError, formRequest, oauthFixtureForSuite, registerApplication, testRedirectUri, token } from "@/lib/testing/oauth";
import { deleteApplicationAsAdmin } from "./applications";
import { resolveOAuthAccessToken } from "./api-token";
import { renderOAuthError } from "./errors";
import { getTokenInfo, getUserInfo, introspectToken, revokeToken } from "./token-info";

/** Doorkeeper's bodies, word for word, so a change of wire text fails here. */
const invalidClientBody = {
  error: "invalid_client",
  error_description:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
};
const unauthorizedClientBody = {
  error: "unauthorized_client",
  error_description: "The client is not authorized to perform this request using this method.",
};
const invalidScopeBody = { error: "invalid_scope", error_description: "The requested scope is invalid, unknown, or malformed." };
const invalidTokenBody = { error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" };

describe.each(testDatabases())("client credentials grant on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);
  const now = () => new Date();

  const clientCredentials = (params: Record<string, string> = {}, options: { basic?: [string, string]; now?: Date } = {}) =>
    token(fixture.db, { grant_type: "client_credentials", ...params }, options);

  /** Rows of the application's tokens and grants, to see what an exchange stored, or that a refusal stored nothing. */
  const storedFor = async (applicationId: number) => ({
    tokens: await fixture.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.applicationId, applicationId)),
    grants: await fixture.db.select().from(oauthGrants).where(eq(oauthGrants.applicationId, applicationId)),
  });


  describe("exchange", () => {
    it("answers GitLab's body without a refresh token, with the secret in HTTP Basic or in the body", async () => {
      const { application, secret } = await registerApplication(fixture);
      const issuedAt = new Date();
      const basic = await clientCredentials({ scope: "read_user" }, { basic: [application.uid, secret], now: issuedAt });
      expect(Object.keys(basic)).toEqual(["access_token", "token_type", "expires_in", "scope", "created_at"]);
      expect(basic).toEqual({
        access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        token_type: "Bearer",
        expires_in: 7200,
        scope: "read_user",
        created_at: Math.floor(issuedAt.getTime() / 1000),
      });
      const posted = await clientCredentials({ client_id: application.uid, client_secret: secret, scope: "api read_user" });
      expect(posted).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api read_user" });
      expect(posted.access_token).not.toBe(basic.access_token);

      // Each exchange is a grant of its own with no user; tokens are stored only as digests, without refresh tokens.
      const { tokens, grants } = await storedFor(application.id);
      expect(tokens).toHaveLength(2);
      expect(grants).toHaveLength(2);
      for (const row of tokens) {
        expect(row).toMatchObject({ userId: null, applicationId: application.id, refreshTokenDigest: null, revokedAt: null });
        expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7200_000);
        expect(JSON.stringify(row)).not.toContain(basic.access_token);
        expect(JSON.stringify(row)).not.toContain(posted.access_token);
      }
      for (const row of grants) expect(row).toMatchObject({ userId: null, applicationId: application.id, revokedAt: null });
      expect(grants.map((grant) => grant.scopes).sort()).toEqual([["api", "read_user"], ["read_user"]]);
      // A new token leaves the earlier one valid, as Doorkeeper does unless told to revoke it.
      expect((await getTokenInfo(fixture.db, basic.access_token, now())).scope).toEqual(["read_user"]);
    });

    it("defaults the scope to api when the application has it, as Doorkeeper's default scopes", async () => {
      const { application, secret } = await registerApplication(fixture, { scopes: ["read_user", "api"] });
      expect((await clientCredentials({}, { basic: [application.uid, secret] })).scope).toBe("api");
      // A blank scope is no scope (Ruby's `present?`).
      expect((await clientCredentials({ scope: "  " }, { basic: [application.uid, secret] })).scope).toBe("api");
    });

    it("refuses scopes beyond the application's, and no scope when the application lacks api, with invalid_scope", async () => {
      const { application, secret } = await registerApplication(fixture, { scopes: ["read_user", "openid"] });
      const basic: [string, string] = [application.uid, secret];
      const refusedScopes: Record<string, string>[] = [{}, { scope: "api" }, { scope: "read_user sudo" }, { scope: "read_user bogus" }, { scope: "read_user\topenid" }];
      for (const params of refusedScopes) {
        const refused = await expectOAuthError(clientCredentials(params, { basic }), "invalid_scope");
        expect(refused.body()).toEqual(invalidScopeBody);
      }
      expect(await storedFor(application.id)).toEqual({ tokens: [], grants: [] });
      expect((await clientCredentials({ scope: "openid read_user" }, { basic })).scope).toBe("openid read_user");
    });

    it("issues no ID token, even with openid: there is no end-user for one to be about", async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await clientCredentials({ scope: "openid" }, { basic: [application.uid, secret] });
      expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "scope", "created_at"]);
    });

    it("answers invalid_client (401, with a challenge) for a wrong, missing or misplaced secret and an unknown client", async () => {
      const { application, secret } = await registerApplication(fixture);
      const attempts: [Record<string, string>, { basic?: [string, string] }][] = [
        [{ client_id: application.uid, client_secret: "gloas-wrong" }, {}],
        [{}, { basic: [application.uid, "gloas-wrong"] }],
        [{ client_id: application.uid }, {}],
        [{}, { basic: [application.uid, ""] }],
        [{ client_id: "0".repeat(64), client_secret: secret }, {}],
        [{}, {}],
        // The secret of another application does not authenticate this one.
        [{ client_id: application.uid, client_secret: (await registerApplication(fixture)).secret }, {}],
      ];
      for (const [params, options] of attempts) {
        const refused = await expectOAuthError(clientCredentials(params, options), "invalid_client", 401);
        const response = answerResponse(renderOAuthError(refused));
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual(invalidClientBody);
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+", error="invalid_client", /);
        expect(response.headers.get("cache-control")).toBe("no-store");
      }
      // Both methods at once is one too many (RFC 6749 §2.3).
      await expectOAuthError(clientCredentials({ client_secret: secret }, { basic: [application.uid, secret] }), "invalid_request");
      expect(await storedFor(application.id)).toEqual({ tokens: [], grants: [] });
    });

    it("refuses a public application with unauthorized_client (401), with or without its secret", async () => {
      const { application, secret } = await registerApplication(fixture, { confidential: false });
      for (const [params, options] of [
        [{ client_id: application.uid }, {}],
        [{ client_id: application.uid, client_secret: secret }, {}],
        [{}, { basic: [application.uid, secret] as [string, string] }],
      ] as const) {
        const refused = await expectOAuthError(clientCredentials(params, options), "unauthorized_client", 401);
        expect(refused.body()).toEqual(unauthorizedClientBody);
      }
      // A wrong secret is still a failed authentication first.
      await expectOAuthError(clientCredentials({ client_id: application.uid, client_secret: "gloas-wrong" }), "invalid_client", 401);
      expect(await storedFor(application.id)).toEqual({ tokens: [], grants: [] });
    });

    it("keeps to its own parameters: a username and password change nothing", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const body = await clientCredentials({ username: user.username, password: "x", code: "y", scope: "api" }, { basic: [application.uid, secret] });
      expect((await getTokenInfo(fixture.db, body.access_token, now())).resource_owner_id).toBeNull();
    });

    it("the database holds the shape: no token without a user has a refresh token, no grant lacks both owners", async () => {
      const { application, secret } = await registerApplication(fixture);
      await clientCredentials({}, { basic: [application.uid, secret] });
      const [row] = (await storedFor(application.id)).tokens;
      await expect(
        fixture.db.update(oauthAccessTokens).set({ refreshTokenDigest: "f".repeat(64) }).where(eq(oauthAccessTokens.id, row!.id)),
      ).rejects.toThrow();
      await expect(fixture.db.update(oauthAccessTokens).set({ applicationId: null }).where(eq(oauthAccessTokens.id, row!.id))).rejects.toThrow();
      await expect(fixture.db.insert(oauthGrants).values({ applicationId: null, userId: null, scopes: ["api"] })).rejects.toThrow();
      const [unchanged] = await fixture.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.id, row!.id));
      expect(unchanged).toEqual(row);
    });
  });

  describe("the token", () => {
    async function applicationToken(scope = "api read_user") {
      const { application, secret } = await registerApplication(fixture);
      const issuedAt = new Date();
      const body = await clientCredentials({ scope }, { basic: [application.uid, secret], now: issuedAt });
      return { application, secret, body, issuedAt };
    }

    it("has token info with resource_owner_id null, as Doorkeeper's", async () => {
      const { application, body, issuedAt } = await applicationToken();
      const info = await getTokenInfo(fixture.db, body.access_token, new Date(issuedAt.getTime() + 10_000));
      expect(JSON.stringify(info)).toBe(
        `{"resource_owner_id":null,"scope":["api","read_user"],"expires_in":7190,"application":{"uid":"${application.uid}"},"created_at":${Math.floor(issuedAt.getTime() / 1000)},"scopes":["api","read_user"],"expires_in_seconds":7190}`,
      );
      const expired = await expectOAuthError(getTokenInfo(fixture.db, body.access_token, new Date(issuedAt.getTime() + 7200_000)), "invalid_token", 401);
      expect(expired.body()).toEqual(invalidTokenBody);
    });

    it("is introspected as active without sub or username, by its own client only", async () => {
      const { application, secret, body, issuedAt } = await applicationToken();
      const other = await registerApplication(fixture);
      const introspect = (basic: [string, string] | undefined, bearer?: string) => {
        const params = { token: body.access_token };
        return introspectToken(fixture.db, formRequest("/oauth/introspect", params, { basic, bearer }), params, now());
      };
      const created = Math.floor(issuedAt.getTime() / 1000);
      const described = await introspect([application.uid, secret]);
      expect(Object.keys(described)).toEqual(["active", "scope", "client_id", "token_type", "exp", "iat", "iss"]);
      expect(described).toEqual({
        active: true,
        scope: "api read_user",
        client_id: application.uid,
        token_type: "Bearer",
        exp: created + 7200,
        iat: created,
        iss: "http://localhost:3000",
      });
      expect(await introspect([other.application.uid, other.secret])).toEqual({ active: false });
      // Another token of the same application may ask, as a resource server holding one would.
      const second = await clientCredentials({ scope: "api" }, { basic: [application.uid, secret] });
      expect(await introspect(undefined, second.access_token)).toMatchObject({ active: true, client_id: application.uid });
    });

    it("lets its application introspect the tokens users gave that application", async () => {
      const { application, secret, body } = await applicationToken();
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { scope: "api" });
      const userToken = await token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret });
      const params = { token: userToken.access_token };
      const described = await introspectToken(fixture.db, formRequest("/oauth/introspect", params, { bearer: body.access_token }), params, now());
      expect(described).toMatchObject({ active: true, username: user.username, sub: String(user.id) });
    });

    it("is revoked by its own client only, and then dead everywhere", async () => {
      const { application, secret, body } = await applicationToken();
      const other = await registerApplication(fixture);
      const revoke = (params: Record<string, string>) => revokeToken(fixture.db, formRequest("/oauth/revoke", params), params, now());
      const strangers: Record<string, string>[] = [{ token: body.access_token }, { token: body.access_token, client_id: other.application.uid, client_secret: other.secret }];
      for (const params of strangers) {
        const refused = await expectOAuthError(revoke(params), "unauthorized_client", 403);
        expect(refused.body()).toEqual({ error: "unauthorized_client", error_description: "You are not authorized to revoke this token" });
      }
      expect((await getTokenInfo(fixture.db, body.access_token, now())).resource_owner_id).toBeNull();

      await revoke({ token: body.access_token, client_id: application.uid, client_secret: secret });
      const [row] = (await storedFor(application.id)).tokens;
      expect(row!.revokedAt).toBeInstanceOf(Date);
      await expectOAuthError(getTokenInfo(fixture.db, body.access_token, now()), "invalid_token", 401);
      const params = { token: body.access_token };
      expect(await introspectToken(fixture.db, formRequest("/oauth/introspect", params, { basic: [application.uid, secret] }), params, now())).toEqual({
        active: false,
      });
      const onApi = await apiFailure(resolveOAuthAccessToken(fixture.db, body.access_token, now()));
      expect(onApi).toBeInstanceOf(InvalidTokenError);
      expect(onApi.body()).toEqual({ error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." });
    });

    it("is refused by userinfo: 403 without openid as any token, 401 invalid_token with it", async () => {
      const withoutOpenid = await applicationToken("api");
      const forbidden = await expectOAuthError(getUserInfo(fixture.db, withoutOpenid.body.access_token, now()), "invalid_scope", 403);
      expect(forbidden.body()).toEqual({ error: "invalid_scope", error_description: 'Access to this resource requires scope "openid".', state: "forbidden" });
      const withOpenid = await applicationToken("openid profile email");
      const refused = await expectOAuthError(getUserInfo(fixture.db, withOpenid.body.access_token, now()), "invalid_token", 401);
      expect(refused.body()).toEqual(invalidTokenBody);
    });

    it("is 401 on the API, as GitLab answers a token with no user, and never falls back to a personal access token", async () => {
      const { body, issuedAt } = await applicationToken("api");
      const refused = await apiFailure(authenticateToken(fixture.db, { value: body.access_token, bearer: true }, now()));
      expect(refused).toBeInstanceOf(UnauthorizedError);
      expect([refused.status, refused.body()]).toEqual([401, { message: "401 Unauthorized" }]);
      // Expiry is told first, as GitLab validates the token before looking for its user.
      const expired = await apiFailure(resolveOAuthAccessToken(fixture.db, body.access_token, new Date(issuedAt.getTime() + 7200_000)));
      expect(expired.body()).toEqual({ error: "invalid_token", error_description: "Token is expired. You can either do re-authorization or token refresh." });
    });

    it("cannot clone even a public project over git: 401, as for a wrong password", async () => {
      const { body } = await applicationToken("api");
      const owner = await createTestUser(fixture.db);
      const view = await createProject(userContext(fixture.db, owner), { name: `Public ${uniqueSuffix()}`, visibility: "public" });
      const authorization = `Basic ${Buffer.from(`oauth2:${body.access_token}`).toString("base64")}`;
      const access = authorizeGitAccess(fixture.db, { projectReference: String(view.project.id), operation: "pull", authorization, now: now() });
      await expect(access).rejects.toBeInstanceOf(UnauthorizedError);
      // Anonymously the same project can be cloned: the token is refused, not the project.
      const anonymous = await authorizeGitAccess(fixture.db, { projectReference: String(view.project.id), operation: "pull", authorization: null, now: now() });
      expect(anonymous.user).toBeNull();
    });

    it("goes with its application", async () => {
      const { application, body } = await applicationToken();
      await deleteApplicationAsAdmin(userContext(fixture.db, fixture.admin), application.id);
      await expectOAuthError(getTokenInfo(fixture.db, body.access_token, now()), "invalid_token", 401);
      expect(await storedFor(application.id)).toEqual({ tokens: [], grants: [] });
    });
  });
});
