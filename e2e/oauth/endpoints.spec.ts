import { expect, test, type APIResponse } from "@playwright/test";
import { createUser } from "../support/api";
import { basicAuth, callbackUrl, createApplication, passwordToken, signIn } from "../support/oauth";

const invalidTokenBody = { error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" };

async function expectOAuthJson(response: APIResponse, status: number, body: unknown): Promise<void> {
  expect(response.status(), await response.text()).toBe(status);
  expect(response.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(response.headers()["cache-control"]).toBe("no-store");
  expect(await response.json()).toEqual(body);
}

test.describe("discovery and keys", () => {
  test("both well-known paths serve the same metadata", async ({ request, baseURL }) => {
    const openid = await request.get("/.well-known/openid-configuration");
    const rfc8414 = await request.get("/.well-known/oauth-authorization-server");
    expect(openid.status()).toBe(200);
    expect(rfc8414.status()).toBe(200);
    const document = (await openid.json()) as Record<string, unknown>;
    expect(await rfc8414.json()).toEqual(document);
    expect(document).toMatchObject({
      issuer: baseURL,
      authorization_endpoint: `${baseURL}/oauth/authorize`,
      token_endpoint: `${baseURL}/oauth/token`,
      revocation_endpoint: `${baseURL}/oauth/revoke`,
      introspection_endpoint: `${baseURL}/oauth/introspect`,
      userinfo_endpoint: `${baseURL}/oauth/userinfo`,
      jwks_uri: `${baseURL}/oauth/discovery/keys`,
      device_authorization_endpoint: `${baseURL}/oauth/authorize_device`,
      id_token_signing_alg_values_supported: ["RS256"],
      subject_types_supported: ["public"],
    });
    // As GitLab: no RFC 9207 flag unless an admin turns `iss` on (e2e/oauth/iss-setting.spec.ts).
    expect(document).not.toHaveProperty("authorization_response_iss_parameter_supported");
    expect([...(document.code_challenge_methods_supported as string[])].sort()).toEqual(["S256", "plain"]);
    expect(document.grant_types_supported).toEqual(
      expect.arrayContaining(["authorization_code", "refresh_token", "password", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"]),
    );
    expect(document.scopes_supported).toEqual(expect.arrayContaining(["api", "read_user", "openid", "profile", "email"]));
  });

  test("the JWKS holds the public RS256 signing key and nothing private", async ({ request }) => {
    const response = await request.get("/oauth/discovery/keys");
    expect(response.status()).toBe(200);
    expect(response.headers()["cache-control"]).toBe("max-age=86400, public, must-revalidate, no-transform");
    const { keys } = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
      expect(key).toMatchObject({ kty: "RSA", use: "sig", alg: "RS256", e: "AQAB" });
    }
    // The same key on a second request: it is kept, not regenerated.
    expect(await (await request.get("/oauth/discovery/keys")).json()).toEqual({ keys });
  });
});

test.describe("token endpoint over HTTP", () => {
  test("answers a CORS preflight", async ({ request }) => {
    const response = await request.fetch("/oauth/token", {
      method: "OPTIONS",
      headers: { Origin: "https://spa.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization" },
    });
    expect(response.status()).toBe(204);
    const headers = response.headers();
    expect(headers["access-control-allow-origin"]).toBe("*");
    expect(headers["access-control-allow-methods"]).toContain("POST");
    expect(headers["access-control-allow-headers"]?.toLowerCase()).toContain("authorization");
    expect(headers["access-control-allow-credentials"]).toBeUndefined();
  });

  test("sends tokens with no-store and errors with WWW-Authenticate", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const ok = await request.post("/oauth/token", {
      form: { grant_type: "password", username: user.username, password: user.password },
      headers: basicAuth(app.application_id, app.secret),
    });
    expect(ok.status()).toBe(200);
    expect(ok.headers()["cache-control"]).toBe("no-store");
    expect(ok.headers()["pragma"]).toBe("no-cache");
    expect(ok.headers()["content-type"]).toBe("application/json; charset=utf-8");
    expect(Object.keys(await ok.json())).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at"]);

    const badClient = await request.post("/oauth/token", {
      form: { grant_type: "password", username: user.username, password: user.password },
      headers: basicAuth(app.application_id, "gloas-wrong"),
    });
    await expectOAuthJson(badClient, 401, {
      error: "invalid_client",
      error_description: "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
    });
    expect(badClient.headers()["www-authenticate"]).toMatch(/^Bearer realm="[^"]+", error="invalid_client", error_description="Client authentication failed/);

    const wrongPassword = await request.post("/oauth/token", {
      form: { grant_type: "password", username: user.username, password: "not it" },
    });
    await expectOAuthJson(wrongPassword, 400, {
      error: "invalid_grant",
      error_description:
        "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
    });
    expect(wrongPassword.headers()["www-authenticate"]).toBeUndefined();
    const unknownUser = await request.post("/oauth/token", { form: { grant_type: "password", username: "nobody_here", password: "x" } });
    expect(await unknownUser.json()).toEqual(await wrongPassword.json());

    const unsupported = await request.post("/oauth/token", { form: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" } });
    await expectOAuthJson(unsupported, 400, {
      error: "unsupported_grant_type",
      error_description: "The authorization grant type is not supported by the authorization server.",
    });
  });
});

test.describe("token info, revocation and introspection", () => {
  test("token info answers GitLab's body, and 401 for a bad token", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const tokens = await passwordToken(request, user, { client_id: app.application_id, client_secret: app.secret, scope: "api read_user" });
    const response = await request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status()).toBe(200);
    expect(response.headers()["cache-control"]).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["resource_owner_id", "scope", "expires_in", "application", "created_at", "scopes", "expires_in_seconds"]);
    expect(body).toMatchObject({
      resource_owner_id: user.id,
      scope: ["api", "read_user"],
      application: { uid: app.application_id },
      created_at: tokens.created_at,
      scopes: ["api", "read_user"],
    });
    expect(body.expires_in).toBeGreaterThan(7100);
    expect(body.expires_in_seconds).toBe(body.expires_in);
    // The query parameter works as well.
    expect((await request.get(`/oauth/token/info?access_token=${tokens.access_token}`)).status()).toBe(200);

    const attempts: Record<string, string>[] = [{}, { Authorization: "Bearer nonsense" }];
    for (const headers of attempts) {
      const refused = await request.get("/oauth/token/info", { headers });
      await expectOAuthJson(refused, 401, invalidTokenBody);
      expect(refused.headers()["www-authenticate"]).toMatch(/^Bearer realm="[^"]+", error="invalid_token", error_description="The access token is invalid"$/);
    }
  });

  test("revocation answers 200 {} and refuses another client's confidential token with 403", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const tokens = await passwordToken(request, user, { client_id: app.application_id, client_secret: app.secret });

    await expectOAuthJson(await request.post("/oauth/revoke", { form: { token: "0".repeat(64) } }), 200, {});
    await expectOAuthJson(await request.post("/oauth/revoke", { form: { token: tokens.access_token } }), 403, {
      error: "unauthorized_client",
      error_description: "You are not authorized to revoke this token",
    });
    expect((await request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status()).toBe(200);

    await expectOAuthJson(
      await request.post("/oauth/revoke", { form: { token: tokens.refresh_token, token_type_hint: "refresh_token" }, headers: basicAuth(app.application_id, app.secret) }),
      200,
      {},
    );
    await expectOAuthJson(await request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${tokens.access_token}` } }), 401, invalidTokenBody);
    // On /api/v4 a revoked OAuth token gets GitLab's own message.
    const api = await request.get("/api/v4/user", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(api.status()).toBe(401);
    expect(await api.json()).toEqual({ error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." });
  });

  test("an OAuth access token works on /api/v4 with its scopes", async ({ request }) => {
    const user = await createUser(request);
    const tokens = await passwordToken(request, user, { scope: "read_user" });
    const me = await request.get("/api/v4/user", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { id: number }).id).toBe(user.id);
    const write = await request.post("/api/v4/projects", { headers: { Authorization: `Bearer ${tokens.access_token}` }, data: { name: "x" } });
    expect(write.status()).toBe(403);
    expect(((await write.json()) as { error: string }).error).toBe("insufficient_scope");
  });

  test("introspection describes a client's own token and nothing else", async ({ request }) => {
    const app = await createApplication(request);
    const other = await createApplication(request);
    const user = await createUser(request);
    const tokens = await passwordToken(request, user, { client_id: app.application_id, client_secret: app.secret });
    const own = await request.post("/oauth/introspect", { form: { token: tokens.access_token }, headers: basicAuth(app.application_id, app.secret) });
    expect(own.status()).toBe(200);
    expect(await own.json()).toMatchObject({
      active: true,
      scope: "api",
      client_id: app.application_id,
      token_type: "Bearer",
      iat: tokens.created_at,
      exp: tokens.created_at + 7200,
      sub: String(user.id),
    });
    await expectOAuthJson(
      await request.post("/oauth/introspect", { form: { token: tokens.access_token }, headers: basicAuth(other.application_id, other.secret) }),
      200,
      { active: false },
    );
    const anonymous = await request.post("/oauth/introspect", { form: { token: tokens.access_token } });
    expect(anonymous.status()).toBe(400);
    expect(((await anonymous.json()) as { error: string }).error).toBe("invalid_request");
  });

  test("userinfo needs the openid scope", async ({ request }) => {
    const user = await createUser(request);
    const tokens = await passwordToken(request, user, { scope: "api" });
    // Doorkeeper's forbidden-token response: invalid_scope, and no challenge to authenticate again.
    const refused = await request.get("/oauth/userinfo", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    await expectOAuthJson(refused, 403, {
      error: "invalid_scope",
      error_description: 'Access to this resource requires scope "openid".',
      state: "forbidden",
    });
    expect(refused.headers()["www-authenticate"]).toBeUndefined();
    await expectOAuthJson(await request.get("/oauth/userinfo", { headers: { Authorization: "Bearer nope" } }), 401, invalidTokenBody);
  });
});

test.describe("/oauth/authorize", () => {
  test("shows an HTML error page with status 400, never a redirect, for an unknown client or redirect URI", async ({ request }) => {
    const app = await createApplication(request);
    for (const query of [
      `client_id=unknown&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&state=s`,
      `client_id=${app.application_id}&redirect_uri=${encodeURIComponent("https://evil.example.com/cb")}&response_type=code&state=s`,
      `client_id=${app.application_id}&response_type=code&state=s`,
    ]) {
      const response = await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 });
      expect(response.status()).toBe(400);
      expect(response.headers()["location"]).toBeUndefined();
      expect(response.headers()["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers()["x-frame-options"]).toBe("DENY");
      expect(response.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(response.headers()["cache-control"]).toBe("no-store");
      const html = await response.text();
      expect(html).toContain("An error has occurred");
      // The site's own page: its header and stylesheet, not a bare document.
      expect(html).toContain('<header class="site-header">');
      expect(html).toMatch(/<link rel="stylesheet" href="\/_next\/static\/[^"]+\.css"/);
      // The unregistered URI is only in the router's copy of the address the visitor typed: no link, form or refresh.
      expect(html).not.toMatch(/(href|action|content|src)="[^"]*evil\.example\.com/);
    }
  });

  test("sends other errors back with error, error_description and state (no iss, as GitLab) to a signed-in person", async ({ request }) => {
    const app = await createApplication(request);
    const publicApp = await createApplication(request, { confidential: false });
    const user = await createUser(request);
    await signIn(request, user.username, user.password);
    const cases: [string, string][] = [
      [`client_id=${app.application_id}&response_type=bogus`, "unsupported_response_type"],
      [`client_id=${app.application_id}&response_type=code&scope=sudo`, "invalid_scope"],
      [`client_id=${publicApp.application_id}&response_type=code`, "invalid_request"],
    ];
    for (const [query, error] of cases) {
      const response = await request.get(`/oauth/authorize?${query}&redirect_uri=${encodeURIComponent(callbackUrl)}&state=st-9`, { maxRedirects: 0 });
      expect(response.status()).toBe(302);
      const location = new URL(response.headers()["location"]!);
      expect(`${location.origin}${location.pathname}`).toBe(callbackUrl);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("error_description")).toBeTruthy();
      expect(location.searchParams.get("state")).toBe("st-9");
      expect(location.searchParams.has("iss")).toBe(false);
    }
  });

  test("sends anonymous visitors to sign in", async ({ request }) => {
    const app = await createApplication(request);
    const response = await request.get(
      `/oauth/authorize?client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&state=a`,
      { maxRedirects: 0 },
    );
    expect(response.status()).toBe(302);
    expect(response.headers()["location"]).toMatch(/^\/users\/sign_in\?callbackUrl=%2Foauth%2Fauthorize%3Fclient_id%3D/);
  });

  test("asks a signed-in person for consent, and the decision endpoint refuses a form without a valid CSRF token", async ({ request, playwright, baseURL }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const query = new URLSearchParams({ client_id: app.application_id, redirect_uri: callbackUrl, response_type: "code", scope: "api", state: "c-1" });

    const anonymous = await playwright.request.newContext({ baseURL });
    try {
      const noSession = await anonymous.post("/oauth/authorize/decision", {
        form: { ...Object.fromEntries(query), decision: "approve", authenticity_token: "bogus" },
        maxRedirects: 0,
      });
      expect(noSession.status()).toBe(403);
      expect(noSession.headers()["location"]).toBeUndefined();
    } finally {
      await anonymous.dispose();
    }

    await signIn(request, user.username, user.password);
    const consent = await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 });
    expect(consent.status()).toBe(302);
    expect(consent.headers()["location"]).toBe(`/oauth/authorize/consent?${query}`);

    for (const token of ["bogus", "", "lz0.abc"]) {
      const forged = await request.post("/oauth/authorize/decision", {
        form: { ...Object.fromEntries(query), decision: "approve", authenticity_token: token },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(forged.headers()["location"]).toBeUndefined();
      expect(forged.headers()["content-type"]).toBe("text/html; charset=utf-8");
    }
    // Nothing was approved: the same request still asks for consent.
    expect((await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 })).headers()["location"]).toContain("/oauth/authorize/consent?");
  });
});
