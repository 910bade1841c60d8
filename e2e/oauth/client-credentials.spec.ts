import { expect, test } from "@playwright/test";
import * as client from "openid-client";
import { createProject, rootToken } from "../support/api";
import { basicAuth, createApplication } from "../support/oauth";

// The client credentials grant (RFC 6749 §4.4) as GitLab's Doorkeeper answers it: a token that acts as the
// application, with no user, driven by openid-client as a backend service would use it.

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

test("openid-client: client credentials with HTTP Basic and in the body → token info → introspection → revocation", async ({ request, baseURL }) => {
  const app = await createApplication(request, { scopes: "api read_user openid" });
  const options = { execute: [client.allowInsecureRequests] };
  const basicConfig = await client.discovery(new URL(baseURL!), app.application_id, undefined, client.ClientSecretBasic(app.secret), options);
  const postConfig = await client.discovery(new URL(baseURL!), app.application_id, undefined, client.ClientSecretPost(app.secret), options);
  expect(basicConfig.serverMetadata().grant_types_supported).toContain("client_credentials");

  const tokens = await client.clientCredentialsGrant(basicConfig, { scope: "read_user openid" });
  expect(tokens.token_type.toLowerCase()).toBe("bearer");
  expect(tokens.expires_in).toBe(7200);
  expect(tokens.scope).toBe("read_user openid");
  expect(tokens.refresh_token).toBeUndefined();
  expect(tokens.id_token).toBeUndefined();
  expect(tokens.access_token).toMatch(/^[0-9a-f]{64}$/);

  // Without a scope, Doorkeeper's default (api) within the application's.
  const byDefault = await client.clientCredentialsGrant(postConfig);
  expect(byDefault.scope).toBe("api");

  const info = await request.get("/oauth/token/info", { headers: bearer(tokens.access_token) });
  expect(info.status()).toBe(200);
  const infoBody = (await info.json()) as Record<string, unknown>;
  expect(infoBody).toEqual({
    resource_owner_id: null,
    scope: ["read_user", "openid"],
    expires_in: expect.any(Number),
    application: { uid: app.application_id },
    created_at: expect.any(Number),
    scopes: ["read_user", "openid"],
    expires_in_seconds: infoBody.expires_in,
  });
  expect(infoBody.expires_in).toBeGreaterThan(7190);

  const introspected = await client.tokenIntrospection(basicConfig, tokens.access_token);
  expect(introspected).toEqual({
    active: true,
    scope: "read_user openid",
    client_id: app.application_id,
    token_type: "Bearer",
    exp: (infoBody.created_at as number) + 7200,
    iat: infoBody.created_at,
    iss: baseURL,
  });
  // Another application learns nothing of it.
  const other = await createApplication(request);
  const otherConfig = await client.discovery(new URL(baseURL!), other.application_id, undefined, client.ClientSecretBasic(other.secret), options);
  expect(await client.tokenIntrospection(otherConfig, tokens.access_token)).toEqual({ active: false });

  await client.tokenRevocation(basicConfig, tokens.access_token);
  const afterRevocation = await request.get("/oauth/token/info", { headers: bearer(tokens.access_token) });
  expect(afterRevocation.status()).toBe(401);
  expect(await afterRevocation.json()).toEqual({ error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" });
  expect(await client.tokenIntrospection(basicConfig, tokens.access_token)).toEqual({ active: false });
  // The other token of the application is untouched.
  expect((await request.get("/oauth/token/info", { headers: bearer(byDefault.access_token) })).status()).toBe(200);
});

test("a client credentials token has no user: the API and git answer 401, userinfo refuses it", async ({ request }) => {
  const app = await createApplication(request, { scopes: "api openid" });
  const token = async (scope: string) => {
    const response = await request.post("/oauth/token", {
      headers: basicAuth(app.application_id, app.secret),
      form: { grant_type: "client_credentials", scope },
    });
    expect(response.status(), await response.text()).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const apiToken = await token("api");
  for (const path of ["/api/v4/user", "/api/v4/projects", `/api/v4/projects?access_token=${apiToken}`]) {
    const response = await request.get(path, { headers: path.includes("access_token") ? {} : bearer(apiToken) });
    expect(response.status(), path).toBe(401);
    expect(await response.json()).toEqual({ message: "401 Unauthorized" });
  }
  // Anonymously the same list answers: it is the token that is refused.
  expect((await request.get("/api/v4/projects")).status()).toBe(200);

  // A public repository anyone may clone anonymously is refused with the token, as for a wrong password.
  const project = await createProject(request, rootToken, { visibility: "public" });
  const refs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
  expect((await request.get(refs)).status()).toBe(200);
  const clone = await request.get(refs, { headers: { Authorization: `Basic ${Buffer.from(`oauth2:${apiToken}`).toString("base64")}` } });
  expect(clone.status()).toBe(401);
  expect(clone.headers()["www-authenticate"]).toBe('Basic realm="GitLab"');

  const withoutOpenid = await request.get("/oauth/userinfo", { headers: bearer(apiToken) });
  expect(withoutOpenid.status()).toBe(403);
  expect(await withoutOpenid.json()).toEqual({ error: "invalid_scope", error_description: 'Access to this resource requires scope "openid".', state: "forbidden" });
  const withOpenid = await request.get("/oauth/userinfo", { headers: bearer(await token("openid")) });
  expect(withOpenid.status()).toBe(401);
  expect(await withOpenid.json()).toEqual({ error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" });
});

test("the token endpoint's refusals: invalid_client, unauthorized_client for a public application, invalid_scope", async ({ request }) => {
  const app = await createApplication(request, { scopes: "read_user" });
  const exchange = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    request.post("/oauth/token", { headers, form: { grant_type: "client_credentials", ...form } });

  const invalidClient = {
    error: "invalid_client",
    error_description: "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  };
  for (const [form, headers] of [
    [{ client_id: app.application_id, client_secret: "gloas-wrong" }, {}],
    [{}, basicAuth(app.application_id, "gloas-wrong")],
    [{ client_id: app.application_id }, {}],
    [{}, {}],
  ] as const) {
    const response = await exchange(form, headers);
    expect(response.status()).toBe(401);
    expect(await response.json()).toEqual(invalidClient);
    expect(response.headers()["www-authenticate"]).toMatch(/^Bearer realm="[^"]+", error="invalid_client", error_description="/);
    expect(response.headers()["cache-control"]).toBe("no-store");
  }

  const publicApp = await createApplication(request, { confidential: false });
  const publicRefusal = await exchange({ client_id: publicApp.application_id });
  expect(publicRefusal.status()).toBe(401);
  expect(await publicRefusal.json()).toEqual({
    error: "unauthorized_client",
    error_description: "The client is not authorized to perform this request using this method.",
  });

  const invalidScope = { error: "invalid_scope", error_description: "The requested scope is invalid, unknown, or malformed." };
  // The application lacks api, the default scope; and sudo is beyond it.
  for (const form of [{}, { scope: "read_user sudo" }] as Record<string, string>[]) {
    const response = await exchange(form, basicAuth(app.application_id, app.secret));
    expect(response.status()).toBe(400);
    expect(await response.json()).toEqual(invalidScope);
    expect(response.headers()["www-authenticate"]).toBeUndefined();
  }

  const granted = await exchange({ scope: "read_user" }, basicAuth(app.application_id, app.secret));
  expect(granted.status()).toBe(200);
  expect(granted.headers()["cache-control"]).toBe("no-store");
  expect(granted.headers()["pragma"]).toBe("no-cache");
  const body = (await granted.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "scope", "created_at"]);
  expect(body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "read_user" });
});
