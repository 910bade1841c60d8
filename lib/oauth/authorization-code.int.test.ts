import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { verifySignIn } from "@/lib/auth/sign-in";
import { oauthAuthorizationCodes, oauthConsents, oauthGrants, users, type UserRow } from "@/lib/db/schema";
import { testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, testPassword, userContext } from "@/lib/testing/fixtures";
import {
  authorizeCode,
  expectOAuthError,
  formRequest,
  invalidGrantBody,
  oauthFixtureForSuite,
  otherRedirectUri,
  registerApplication,
  testRedirectUri,
  testS256Challenge,
  testVerifier,
  token,
} from "@/lib/testing/oauth";
import { beginAuthorization, checkAuthorizationRequest, decideAuthorization } from "./authorize";
import { answerResponse } from "@/lib/http/answer";
import { renderOAuthError } from "./errors";
import { exchangeToken } from "./token";
import { getTokenInfo } from "./token-info";
import { publicJwks } from "./keys";
import { discoveryDocument } from "./discovery";
import { maxCodeVerifierLength } from "./pkce";
import { ForbiddenError } from "@/lib/errors";
import { getInstanceSettings, instanceSettingsOf, updateInstanceSettings } from "@/lib/instance/settings";

const issuer = "http://localhost:3000";

describe.each(testDatabases())("authorization code grant on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);
  let signedInUser: UserRow | undefined;
  /** A context with a signed-in, confirmed person: the checks that go back to the client only run for one. */
  const signedIn = async () => userContext(fixture.db, (signedInUser ??= await createTestUser(fixture.db)));

  const codeParams = (uid: string, code: string, extra: Record<string, string> = {}) => ({
    grant_type: "authorization_code",
    code,
    redirect_uri: testRedirectUri,
    client_id: uid,
    ...extra,
  });

  describe("redeeming a code", () => {
    it("issues GitLab's token response to a confidential client authenticating with HTTP Basic", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code, location } = await authorizeCode(fixture.db, user, application, { scope: "api read_user" });
      expect(location.origin + location.pathname).toBe(testRedirectUri);
      // No `iss`: GitLab sends none (RFC 9207 is an instance setting, off by default).
      expect([...location.searchParams.keys()]).toEqual(["code", "state"]);
      expect(location.searchParams.get("state")).toBe("xyz");
      expect(code).toMatch(/^[0-9a-f]{64}$/);

      const now = new Date();
      const params = { grant_type: "authorization_code", code, redirect_uri: testRedirectUri };
      const body = await token(fixture.db, params, { basic: [application.uid, secret], now });
      expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at"]);
      expect(body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api read_user", created_at: Math.floor(now.getTime() / 1000) });
      expect(body.access_token).toMatch(/^[0-9a-f]{64}$/);
      expect(body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
      expect(await getTokenInfo(fixture.db, body.access_token, now)).toMatchObject({ resource_owner_id: user.id, scope: ["api", "read_user"] });
    });

    it("accepts client_secret_post as well", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      const body = await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }));
      expect(body.scope).toBe("api");
    });

    it("refuses a code presented twice and revokes every token issued from it", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      const params = codeParams(application.uid, code, { client_secret: secret });
      const first = await token(fixture.db, params);
      expect((await getTokenInfo(fixture.db, first.access_token, new Date())).resource_owner_id).toBe(user.id);

      const replay = await expectOAuthError(token(fixture.db, params), "invalid_grant");
      expect(replay.body()).toEqual(invalidGrantBody);
      await expectOAuthError(getTokenInfo(fixture.db, first.access_token, new Date()), "invalid_token", 401);
      await expectOAuthError(
        token(fixture.db, { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: application.uid, client_secret: secret }),
        "invalid_grant",
      );
    });

    it("refuses a code after 600 seconds", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const issuedAt = new Date();
      const { code } = await authorizeCode(fixture.db, user, application, {}, issuedAt);
      const later = new Date(issuedAt.getTime() + 601_000);
      await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { client_secret: secret }), { now: later }), "invalid_grant");
      // Just inside the lifetime it still works: the refusal above was the expiry, not something else.
      const inTime = new Date(issuedAt.getTime() + 599_000);
      expect((await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }), { now: inTime })).scope).toBe("api");
    });

    it("refuses a redirect_uri other than the one the code was issued for, and requires one", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      await expectOAuthError(
        token(fixture.db, codeParams(application.uid, code, { client_secret: secret, redirect_uri: otherRedirectUri })),
        "invalid_grant",
      );
      const missing = await expectOAuthError(
        token(fixture.db, { grant_type: "authorization_code", code, client_id: application.uid, client_secret: secret }),
        "invalid_request",
      );
      expect(missing.description).toBe("Missing required parameter: redirect_uri.");
      await expectOAuthError(
        token(fixture.db, { grant_type: "authorization_code", redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret }),
        "invalid_request",
      );
      // Neither refusal spent the code.
      expect((await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }))).scope).toBe("api");
    });

    it("refuses a code issued to another client", async () => {
      const victim = await registerApplication(fixture);
      const attacker = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, victim.application);
      await expectOAuthError(
        token(fixture.db, codeParams(attacker.application.uid, code, { client_secret: attacker.secret })),
        "invalid_grant",
      );
      await expectOAuthError(token(fixture.db, codeParams(victim.application.uid, "0".repeat(64), { client_secret: victim.secret })), "invalid_grant");
    });

    it("answers 401 invalid_client for a wrong, missing or unknown client, with WWW-Authenticate when rendered", async () => {
      const { application } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      const wrong = await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { client_secret: "gloas-wrong" })), "invalid_client", 401);
      expect(wrong.description).toBe(
        "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
      );
      await expectOAuthError(
        token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri }, { basic: [application.uid, "gloas-wrong"] }),
        "invalid_client",
        401,
      );
      await expectOAuthError(token(fixture.db, codeParams(application.uid, code)), "invalid_client", 401);
      await expectOAuthError(token(fixture.db, codeParams("f".repeat(64), code, { client_secret: "x" })), "invalid_client", 401);
      await expectOAuthError(token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri }), "invalid_client", 401);

      const response = answerResponse(renderOAuthError(wrong));
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+", error="invalid_client", error_description="Client authentication failed/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(await response.json()).toEqual({ error: "invalid_client", error_description: wrong.description });
    });

    it("answers invalid_request without grant_type and unsupported_grant_type for grants it does not offer", async () => {
      const now = new Date();
      const missing = await expectOAuthError(exchangeToken(fixture.db, formRequest("/oauth/token", {}), {}, now), "invalid_request");
      expect(missing.description).toBe("Missing required parameter: grant_type.");
      for (const grantType of ["implicit", "device_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"]) {
        const refused = await expectOAuthError(
          exchangeToken(fixture.db, formRequest("/oauth/token", {}), { grant_type: grantType }, now),
          "unsupported_grant_type",
        );
        expect(refused.description).toBe("The authorization grant type is not supported by the authorization server.");
      }
      await expectOAuthError(
        exchangeToken(fixture.db, formRequest("/oauth/token", {}), { grant_type: "password", username: ["a", "b"] }, now),
        "invalid_request",
      );
    });
  });

  describe("PKCE", () => {
    it("completes S256 for a public client that authenticates by client_id alone", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      const body = await token(fixture.db, codeParams(application.uid, code, { code_verifier: testVerifier }));
      expect(body.token_type).toBe("Bearer");
    });

    it("completes plain", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const verifier = "plain-verifier-".padEnd(50, "x");
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: verifier, code_challenge_method: "plain" });
      expect((await token(fixture.db, codeParams(application.uid, code, { code_verifier: verifier }))).scope).toBe("api");
    });

    it("refuses a wrong verifier (invalid_grant) and a missing one (invalid_request)", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { code_verifier: "x".repeat(43) })), "invalid_grant");
      // The plain value of the challenge is not a verifier for S256.
      await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { code_verifier: testS256Challenge })), "invalid_grant");
      const missing = await expectOAuthError(token(fixture.db, codeParams(application.uid, code)), "invalid_request");
      expect(missing.description).toBe("Missing required parameter: code_verifier.");
    });

    it("accepts any verifier whose transform matches, as Doorkeeper: git-credential-oauth's standard base64 among them", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      // 32 random bytes in standard base64, as git-credential-oauth makes its verifier: `+`, `/` and `=` included.
      const verifier = "q+/Zk8Lw0yO3sR2M1aWm/7cV+e5pN6tYhJ4uX9bDfGo=";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: challenge, code_challenge_method: "S256" });
      expect((await token(fixture.db, codeParams(application.uid, code, { code_verifier: verifier }))).token_type).toBe("Bearer");
      // Short and long plain verifiers alike, up to the limit.
      for (const plain of ["short", "~".repeat(maxCodeVerifierLength)]) {
        const issued = await authorizeCode(fixture.db, user, application, { code_challenge: plain, code_challenge_method: "plain" });
        expect((await token(fixture.db, codeParams(application.uid, issued.code, { code_verifier: plain }))).scope).toBe("api");
      }
    });

    it("refuses a verifier over the length limit with invalid_request, without spending the code", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      const tooLong = await expectOAuthError(
        token(fixture.db, codeParams(application.uid, code, { code_verifier: "x".repeat(maxCodeVerifierLength + 1) })),
        "invalid_request",
      );
      expect(tooLong.body()).toEqual({ error: "invalid_request", error_description: "The code_verifier is too long (maximum is 1024 characters)." });
      expect((await token(fixture.db, codeParams(application.uid, code, { code_verifier: testVerifier }))).token_type).toBe("Bearer");
    });

    it("refuses at /oauth/authorize a challenge no verifier can answer", async () => {
      const { application } = await registerApplication(fixture, { confidential: false });
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code", state: "p" };
      for (const [challenge, method] of [
        [`${testS256Challenge}=`, "S256"],
        [testS256Challenge.slice(1), "S256"],
        ["a+b/c".padEnd(43, "x"), "S256"],
        ["x".repeat(maxCodeVerifierLength + 1), "plain"],
      ] as const) {
        const check = await checkAuthorizationRequest(await signedIn(), { ...base, code_challenge: challenge, code_challenge_method: method });
        if (check.kind !== "redirect") throw new Error(`expected a redirect for ${challenge}, got ${check.kind}`);
        expect(Object.fromEntries(new URL(check.location).searchParams)).toEqual({
          error: "invalid_request",
          error_description: "The code_challenge is malformed.",
          state: "p",
        });
      }
    });

    it("refuses a verifier for a code issued without a challenge (downgrade)", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application);
      await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { client_secret: secret, code_verifier: testVerifier })), "invalid_grant");
    });
  });

  describe("loopback redirect URIs (RFC 8252 §7.3)", () => {
    it("match a registered loopback URI on any port; the code is bound to the URI as sent, port included", async () => {
      const { application, secret } = await registerApplication(fixture, { redirectUri: "http://127.0.0.1\nhttp://[::1]/callback" });
      const user = await createTestUser(fixture.db);
      for (const sent of ["http://127.0.0.1:49152", "http://127.0.0.1", "http://[::1]:8080/callback"]) {
        const { code, location } = await authorizeCode(fixture.db, user, application, { redirect_uri: sent });
        expect(location.origin + location.pathname).toBe(new URL(sent).origin + new URL(sent).pathname);
        expect(location.host).toBe(new URL(sent).host);
        // The token endpoint wants exactly the URI the code was issued for: another port is another URI there.
        const otherPort = sent.replace(/(\]|1)(:\d+)?(\/|$)/, "$1:1$3");
        await expectOAuthError(token(fixture.db, codeParams(application.uid, code, { client_secret: secret, redirect_uri: otherPort })), "invalid_grant");
        expect((await token(fixture.db, codeParams(application.uid, code, { client_secret: secret, redirect_uri: sent }))).scope).toBe("api");
      }
    });

    it("keep everything but the port exact, and do not count localhost as loopback", async () => {
      const { application } = await registerApplication(fixture, { redirectUri: "http://127.0.0.1/callback\nhttp://localhost/callback" });
      for (const sent of [
        "http://127.0.0.1:49152/",
        "http://127.0.0.1:49152/callback/",
        "http://127.0.0.1:49152/callback?x=1",
        "http://127.0.0.2:49152/callback",
        "https://127.0.0.1:49152/callback",
        "http://user@127.0.0.1:49152/callback",
        "http://localhost:49152/callback",
      ]) {
        expect(await checkAuthorizationRequest(await signedIn(), { client_id: application.uid, redirect_uri: sent, response_type: "code" })).toEqual({
          kind: "error_page",
          error: "invalid_redirect_uri",
          description: "The redirect URI included is not valid.",
        });
      }
    });
  });

  describe("iss in authorization responses (RFC 9207), an instance setting", () => {
    it("is sent with codes, errors and denials, and advertised by discovery, only while an admin has it on", async () => {
      const admin = userContext(fixture.db, fixture.admin);
      const { application } = await registerApplication(fixture, { implicit: true });
      const user = await createTestUser(fixture.db);
      const ctx = userContext(fixture.db, user);
      const params = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code", scope: "api", state: "r" };
      const answers = async () => {
        const approved = await decideAuthorization(ctx, params, "approve");
        const denied = await decideAuthorization(ctx, params, "deny");
        const refused = await checkAuthorizationRequest(ctx, { ...params, scope: "sudo" });
        const implicit = await decideAuthorization(ctx, { ...params, response_type: "token" }, "approve");
        const locations = [approved, denied, refused, implicit].map((step) => {
          if (step.kind !== "redirect") throw new Error(`expected a redirect, got ${step.kind}`);
          return new URL(step.location);
        });
        return locations.map((location) => new URLSearchParams(location.hash ? location.hash.slice(1) : location.search).get("iss"));
      };

      expect(await getInstanceSettings(admin)).toEqual({ oauthAuthorizationResponseIss: false, allowLocalRequestsFromWebHooksAndServices: false, canCreateGroup: true });
      expect(await answers()).toEqual([null, null, null, null]);
      expect(await discoveryDocument(fixture.db)).not.toHaveProperty("authorization_response_iss_parameter_supported");

      expect(await updateInstanceSettings(admin, { oauthAuthorizationResponseIss: true })).toEqual({ oauthAuthorizationResponseIss: true, allowLocalRequestsFromWebHooksAndServices: false, canCreateGroup: true });
      try {
        expect(await answers()).toEqual([issuer, issuer, issuer, issuer]);
        expect(await discoveryDocument(fixture.db)).toMatchObject({ issuer, authorization_response_iss_parameter_supported: true });
      } finally {
        expect(await updateInstanceSettings(admin, { oauthAuthorizationResponseIss: false })).toEqual({ oauthAuthorizationResponseIss: false, allowLocalRequestsFromWebHooksAndServices: false, canCreateGroup: true });
      }
      expect(await answers()).toEqual([null, null, null, null]);
      expect(await discoveryDocument(fixture.db)).not.toHaveProperty("authorization_response_iss_parameter_supported");
    });

    it("is changed by admins only", async () => {
      const someone = userContext(fixture.db, await createTestUser(fixture.db));
      await expect(getInstanceSettings(someone)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(updateInstanceSettings(someone, { oauthAuthorizationResponseIss: true })).rejects.toBeInstanceOf(ForbiddenError);
      expect(await instanceSettingsOf(fixture.db)).toEqual({ oauthAuthorizationResponseIss: false, allowLocalRequestsFromWebHooksAndServices: false, canCreateGroup: true });
    });
  });

  describe("GET /oauth/authorize checks", () => {
    it("shows an error page, never a redirect, for an unknown client or an unregistered redirect URI", async () => {
      const { application } = await registerApplication(fixture);
      expect(await checkAuthorizationRequest(await signedIn(), { client_id: "nope", redirect_uri: testRedirectUri, response_type: "code" })).toEqual({
        kind: "error_page",
        error: "invalid_client",
        description: expect.any(String),
      });
      expect(
        await checkAuthorizationRequest(await signedIn(), { client_id: application.uid, redirect_uri: "https://evil.example.com/cb", response_type: "code" }),
      ).toMatchObject({ kind: "error_page", error: "invalid_redirect_uri" });
      // Exact match only: a prefix, a trailing slash or an added query is not the registered URI.
      for (const near of [`${testRedirectUri}/`, `${testRedirectUri}?a=1`, testRedirectUri.toUpperCase(), "https://client.example.com/callbac"]) {
        expect(await checkAuthorizationRequest(await signedIn(), { client_id: application.uid, redirect_uri: near, response_type: "code" })).toMatchObject({
          kind: "error_page",
        });
      }
      expect(await checkAuthorizationRequest(await signedIn(), { client_id: application.uid, response_type: "code" })).toMatchObject({ kind: "error_page" });
      expect(await checkAuthorizationRequest(await signedIn(), { redirect_uri: testRedirectUri, response_type: "code" })).toMatchObject({
        kind: "error_page",
        error: "invalid_request",
      });
    });

    it("sends other errors back to the client with error, error_description and state, without iss", async () => {
      const { application } = await registerApplication(fixture, { scopes: ["api", "read_user"] });
      const publicApp = await registerApplication(fixture, { confidential: false });
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, state: "s-1" };
      const cases: [Record<string, string>, string][] = [
        [{ ...base, response_type: "unknown" }, "unsupported_response_type"],
        [{ ...base, response_type: "token" }, "unsupported_response_type"],
        [{ ...base }, "invalid_request"],
        [{ ...base, response_type: "code", scope: "sudo" }, "invalid_scope"],
        [{ ...base, response_type: "code", scope: "api nonsense" }, "invalid_scope"],
        [{ ...base, response_type: "code", scope: "openid" }, "invalid_scope"],
        [{ ...base, response_type: "code", code_challenge: testS256Challenge, code_challenge_method: "S512" }, "invalid_request"],
        [{ ...base, client_id: publicApp.application.uid, response_type: "code" }, "invalid_request"],
      ];
      for (const [params, error] of cases) {
        const check = await checkAuthorizationRequest(await signedIn(), params);
        if (check.kind !== "redirect") throw new Error(`expected a redirect for ${JSON.stringify(params)}, got ${JSON.stringify(check)}`);
        const location = new URL(check.location);
        const values = new URLSearchParams(location.hash ? location.hash.slice(1) : location.search);
        expect(location.origin + location.pathname).toBe(testRedirectUri);
        expect({ error: values.get("error"), state: values.get("state"), iss: values.get("iss") }).toEqual({ error, state: "s-1", iss: null });
        expect(values.get("error_description")).toBeTruthy();
        expect(values.get("code")).toBeNull();
      }
    });

    it("sends an anonymous visitor to sign in before checking anything the client could be told about", async () => {
      const { application } = await registerApplication(fixture, { scopes: ["api", "read_user"] });
      const publicApp = await registerApplication(fixture, { confidential: false });
      const anonymous = anonymousTestContext(fixture.db);
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, state: "s-1" };
      // Each of these goes back to the client for a signed-in person (above); for nobody, it is the sign-in page.
      for (const params of [
        { ...base, response_type: "bogus" },
        { ...base, response_type: "code", scope: "sudo" },
        { ...base, response_type: "code", code_challenge: testS256Challenge, code_challenge_method: "S512" },
        { ...base, client_id: publicApp.application.uid, response_type: "code" },
        base,
      ]) {
        expect(await checkAuthorizationRequest(anonymous, params)).toEqual({ kind: "sign_in" });
      }
      // What cannot be trusted is still an error page, for everybody.
      expect(await checkAuthorizationRequest(anonymous, { ...base, client_id: "nope", response_type: "code" })).toMatchObject({
        kind: "error_page",
        error: "invalid_client",
      });
      expect(await checkAuthorizationRequest(anonymous, { ...base, redirect_uri: "https://evil.example.com/cb", scope: "sudo" })).toMatchObject({
        kind: "error_page",
        error: "invalid_redirect_uri",
      });
    });

    it("shows repeated parameters and NUL characters as an error page, signed in or not", async () => {
      const { application } = await registerApplication(fixture);
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code" };
      for (const ctx of [anonymousTestContext(fixture.db), await signedIn()]) {
        expect(await checkAuthorizationRequest(ctx, { ...base, scope: ["api", "read_user"] })).toEqual({
          kind: "error_page",
          error: "invalid_request",
          description: "Parameter scope was given more than once.",
        });
        expect(await checkAuthorizationRequest(ctx, { ...base, state: "a\u0000b" })).toEqual({
          kind: "error_page",
          error: "invalid_request",
          description: "Parameter state must not contain NUL characters.",
        });
        expect(await checkAuthorizationRequest(ctx, { ...base, client_id: `${application.uid}\u0000` })).toMatchObject({
          kind: "error_page",
          description: "Parameter client_id must not contain NUL characters.",
        });
      }
    });

    it("shows a person whose email address is not confirmed an error page, even for a trusted application", async () => {
      const { application } = await registerApplication(fixture);
      const trusted = await registerApplication(fixture, { trusted: true });
      const user = await createTestUser(fixture.db, { confirmed: false });
      expect(user.confirmedAt).toBeNull();
      const unconfirmed = userContext(fixture.db, user);
      const unconfirmedPage = {
        kind: "error_page",
        error: "unconfirmed_email",
        description: "Verify the email address in your account profile before you sign in.",
      };
      for (const app of [application, trusted.application]) {
        const params = { client_id: app.uid, redirect_uri: testRedirectUri, response_type: "code", state: "u" };
        expect(await beginAuthorization(unconfirmed, params)).toEqual(unconfirmedPage);
        expect(await decideAuthorization(unconfirmed, params, "approve")).toEqual(unconfirmedPage);
        // Nor does a bad request reach the client through an unconfirmed account.
        expect(await beginAuthorization(unconfirmed, { ...params, scope: "sudo" })).toEqual(unconfirmedPage);
      }
      // Nothing was approved or issued for them.
      expect(await fixture.db.select().from(oauthConsents).where(eq(oauthConsents.userId, user.id))).toEqual([]);
      expect(await fixture.db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.id))).toEqual([]);
    });

    it("defaults the scope to api", async () => {
      const { application } = await registerApplication(fixture);
      const check = await checkAuthorizationRequest(await signedIn(), { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code" });
      expect(check).toMatchObject({ kind: "valid", request: { scopes: ["api"] } });
    });
  });

  describe("consent", () => {
    const request = (uid: string, scope: string) => ({ client_id: uid, redirect_uri: testRedirectUri, response_type: "code", scope, state: "st" });

    it("sends anonymous visitors to sign in and asks for consent the first time", async () => {
      const { application } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      expect(await beginAuthorization(anonymousTestContext(fixture.db), request(application.uid, "api"))).toEqual({ kind: "sign_in" });
      expect(await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api"))).toMatchObject({
        kind: "consent",
        request: { scopes: ["api"], state: "st" },
      });
    });

    it("remembers approved scopes, asks again for wider ones, and keeps what was approved earlier", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const approved = await decideAuthorization(userContext(fixture.db, user), request(application.uid, "api openid"), "approve");
      expect(approved.kind).toBe("redirect");

      const again = await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api openid"));
      if (again.kind !== "redirect") throw new Error(`expected a redirect, got ${again.kind}`);
      const location = new URL(again.location);
      expect(location.searchParams.get("state")).toBe("st");
      expect(location.searchParams.has("iss")).toBe(false);
      const code = location.searchParams.get("code")!;
      expect((await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }))).scope).toBe("api openid");

      expect((await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api read_user"))).kind).toBe("consent");

      // A narrower request is approved silently, and does not shrink what the person approved before.
      expect((await beginAuthorization(userContext(fixture.db, user), request(application.uid, "openid"))).kind).toBe("redirect");
      expect((await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api openid"))).kind).toBe("redirect");
      const [consent] = await fixture.db.select().from(oauthConsents).where(eq(oauthConsents.userId, user.id));
      expect([...consent!.scopes].sort()).toEqual(["api", "openid"]);
    });

    it("never remembers consent for a public client, whose client_id anyone can send", async () => {
      const { application: publicApp } = await registerApplication(fixture, { confidential: false });
      const { application: confidentialApp } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const ctx = userContext(fixture.db, user);
      const withPkce = { code_challenge: testS256Challenge, code_challenge_method: "S256" };
      for (const app of [publicApp, confidentialApp]) {
        expect((await decideAuthorization(ctx, { ...request(app.uid, "api"), ...withPkce }, "approve")).kind).toBe("redirect");
      }
      // Both approvals are on record: the difference is only in whom a remembered approval may be trusted for.
      const consents = await fixture.db.select().from(oauthConsents).where(eq(oauthConsents.userId, user.id));
      expect(consents.map((consent) => consent.applicationId).sort()).toEqual([publicApp.id, confidentialApp.id].sort());

      expect(await beginAuthorization(ctx, { ...request(publicApp.uid, "api"), ...withPkce })).toMatchObject({
        kind: "consent",
        request: { application: { id: publicApp.id }, scopes: ["api"] },
      });
      const confidential = await beginAuthorization(ctx, { ...request(confidentialApp.uid, "api"), ...withPkce });
      if (confidential.kind !== "redirect") throw new Error(`expected a redirect, got ${confidential.kind}`);
      expect(new URL(confidential.location).searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
    });

    it("skips consent for a trusted application", async () => {
      const { application } = await registerApplication(fixture, { trusted: true });
      const user = await createTestUser(fixture.db);
      const step = await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api read_user"));
      expect(step.kind).toBe("redirect");
      if (step.kind === "redirect") expect(new URL(step.location).searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
    });

    it("sends a denial back as access_denied with state", async () => {
      const { application } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const denied = await decideAuthorization(userContext(fixture.db, user), request(application.uid, "api"), "deny");
      if (denied.kind !== "redirect") throw new Error("expected a redirect");
      const location = new URL(denied.location);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error: "access_denied",
        error_description: "The resource owner or authorization server denied the request.",
        state: "st",
      });
      // Nothing was remembered by a denial.
      expect((await beginAuthorization(userContext(fixture.db, user), request(application.uid, "api"))).kind).toBe("consent");
    });

    it("re-checks the consent form's fields", async () => {
      const { application } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const forged = { ...request(application.uid, "api"), redirect_uri: "https://evil.example.com/cb" };
      expect(await decideAuthorization(userContext(fixture.db, user), forged, "approve")).toMatchObject({ kind: "error_page" });
    });
  });

  describe("implicit grant", () => {
    it("is refused unless an admin enabled it for the application", async () => {
      const { application } = await registerApplication(fixture);
      const check = await checkAuthorizationRequest(await signedIn(), {
        client_id: application.uid,
        redirect_uri: testRedirectUri,
        response_type: "token",
        state: "i",
      });
      expect(check.kind).toBe("redirect");
      if (check.kind === "redirect") expect(check.location).toContain("error=unsupported_response_type");
      expect(check.kind === "redirect" && check.location).not.toContain("access_token");
    });

    it("puts the access token in the fragment, without a refresh token", async () => {
      const { application } = await registerApplication(fixture, { implicit: true });
      const user = await createTestUser(fixture.db);
      const result = await decideAuthorization(
        userContext(fixture.db, user),
        { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "token", state: "i-1", scope: "read_user" },
        "approve",
      );
      if (result.kind !== "redirect") throw new Error("expected a redirect");
      const location = new URL(result.location);
      expect(location.search).toBe("");
      const fragment = new URLSearchParams(location.hash.slice(1));
      expect(fragment.get("access_token")).toMatch(/^[0-9a-f]{64}$/);
      expect(fragment.get("token_type")).toBe("Bearer");
      expect(fragment.get("expires_in")).toBe("7200");
      expect(fragment.get("state")).toBe("i-1");
      expect(fragment.has("refresh_token")).toBe(false);
      expect(fragment.has("code")).toBe(false);
      expect(await getTokenInfo(fixture.db, fragment.get("access_token"), new Date())).toMatchObject({ scope: ["read_user"] });
    });
  });

  describe("ID token", () => {
    it("is an RS256 JWT that verifies against the JWKS with the OpenID claims", async () => {
      const { application, secret } = await registerApplication(fixture);
      const created = await createTestUser(fixture.db);
      const signedIn = await verifySignIn(fixture.db, { login: created.username, password: testPassword }, new Date(Date.now() - 60_000));
      if (!signedIn.ok) throw new Error("sign-in failed");
      const user = signedIn.user;
      const { code } = await authorizeCode(fixture.db, user, application, { scope: "openid api", nonce: "n-0S6_WzA2Mj" });
      const now = new Date();
      const body = await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }), { now });
      expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at", "id_token"]);

      const jwks = createLocalJWKSet(await publicJwks(fixture.db));
      const { payload, protectedHeader } = await jwtVerify(body.id_token!, jwks, { issuer, audience: application.uid, algorithms: ["RS256"], currentDate: now });
      expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "JWT" });
      expect(protectedHeader.kid).toBe((await publicJwks(fixture.db)).keys[0]!.kid);
      const iat = Math.floor(now.getTime() / 1000);
      expect(payload).toMatchObject({
        iss: issuer,
        sub: String(user.id),
        aud: application.uid,
        iat,
        exp: iat + 120,
        auth_time: Math.floor(user.lastSignInAt!.getTime() / 1000),
        nonce: "n-0S6_WzA2Mj",
        name: user.name,
        nickname: user.username,
        preferred_username: user.username,
      });
      expect(typeof payload.sub).toBe("string");
      // The address is released only with the email scope.
      expect(payload).not.toHaveProperty("email");
      expect(payload).not.toHaveProperty("email_verified");

      // A refresh keeps the openid scope and issues a fresh ID token, without the nonce of the authorization request.
      const refreshed = await token(fixture.db, {
        grant_type: "refresh_token",
        refresh_token: body.refresh_token!,
        client_id: application.uid,
        client_secret: secret,
      });
      const again = await jwtVerify(refreshed.id_token!, jwks, { issuer, audience: application.uid });
      expect(again.payload.sub).toBe(String(user.id));
      expect(again.payload.nonce).toBeUndefined();
      expect(decodeProtectedHeader(refreshed.id_token!).kid).toBe(protectedHeader.kid);
    });

    it("carries the address with the email scope, verified only once its owner confirmed it", async () => {
      const { application, secret } = await registerApplication(fixture);
      const jwks = createLocalJWKSet(await publicJwks(fixture.db));
      const claimsFor = async (user: UserRow) => {
        const { code } = await authorizeCode(fixture.db, user, application, { scope: "openid email" });
        const body = await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }));
        return (await jwtVerify(body.id_token!, jwks, { issuer, audience: application.uid })).payload;
      };
      const confirmed = await createTestUser(fixture.db);
      expect(await claimsFor(confirmed)).toMatchObject({ email: confirmed.email, email_verified: true });
      // Someone signed up with an address they may not own. The authorization endpoint refuses them; the password grant
      // (open to them in the soft grace period) gives an ID token that must not vouch for the address.
      const unconfirmed = await createTestUser(fixture.db, { confirmed: false });
      await fixture.db.update(users).set({ confirmationSentAt: new Date() }).where(eq(users.id, unconfirmed.id));
      const body = await token(fixture.db, {
        grant_type: "password",
        username: unconfirmed.username,
        password: testPassword,
        scope: "openid email",
        client_id: application.uid,
        client_secret: secret,
      });
      const claims = (await jwtVerify(body.id_token!, jwks, { issuer, audience: application.uid })).payload;
      expect(claims).toMatchObject({ email: unconfirmed.email, email_verified: false });
    });

    it("is left out without the openid scope", async () => {
      const { application, secret } = await registerApplication(fixture);
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { scope: "api" });
      expect((await token(fixture.db, codeParams(application.uid, code, { client_secret: secret }))).id_token).toBeUndefined();
    });
  });

  it("stores codes only as digests", async () => {
    const { application } = await registerApplication(fixture, { confidential: false });
    const user = await createTestUser(fixture.db);
    const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
    const rows = await fixture.db.select().from(oauthAuthorizationCodes);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) for (const value of Object.values(row)) expect(value).not.toBe(code);
    expect(JSON.stringify(rows)).not.toContain(code);
  });
});
