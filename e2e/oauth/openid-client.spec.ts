import { expect, test } from "@playwright/test";
import * as client from "openid-client";
import { asToken, createUser, uniqueName } from "../support/api";
import { callbackUrl, createApplication, discover, pkceAuthorizationRequest, signIn } from "../support/oauth";

// A certified-style relying party (openid-client) drives the provider: every response it accepts has passed its
// own validation (issuer, audience, signature against the JWKS, nonce, state, PKCE).

test("discovery → password grant → ID token → userinfo → refresh with rotation", async ({ request, baseURL }) => {
  const app = await createApplication(request);
  const user = await createUser(request);
  const config = await discover(baseURL!, app.application_id, app.secret);
  expect(config.serverMetadata().issuer).toBe(baseURL);

  const tokens = await client.genericGrantRequest(config, "password", {
    username: user.username,
    password: user.password,
    scope: "openid api email",
  });
  expect(tokens.token_type.toLowerCase()).toBe("bearer");
  expect(tokens.expires_in).toBe(7200);
  expect(tokens.scope).toBe("openid api email");
  const claims = tokens.claims()!;
  expect(claims).toMatchObject({
    iss: baseURL,
    sub: String(user.id),
    aud: app.application_id,
    name: `User ${user.username}`,
    nickname: user.username,
    preferred_username: user.username,
    email: user.email,
    email_verified: true,
  });
  expect(claims.exp - claims.iat).toBe(120);
  expect(typeof claims.auth_time).toBe("number");

  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  expect(userinfo).toMatchObject({ sub: String(user.id), preferred_username: user.username, email: user.email, email_verified: true });

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.access_token).not.toBe(tokens.access_token);
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  expect(refreshed.claims()!.sub).toBe(String(user.id));
  // Rotation: the old access token is dead at once, the new one works.
  const oldInfo = await request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  expect(oldInfo.status()).toBe(401);
  expect((await client.fetchUserInfo(config, refreshed.access_token, claims.sub)).sub).toBe(String(user.id));
  // Presenting the rotated refresh token again is refused, and takes the new pair down with it.
  await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant", status: 400 });
  await expect(client.fetchUserInfo(config, refreshed.access_token, claims.sub)).rejects.toMatchObject({ status: 401 });
});

test("a user in nested groups: userinfo names every group they reach and their roles, the ID token their own groups", async ({ request, baseURL }) => {
  const app = await createApplication(request);
  const owner = await createUser(request);
  const user = await createUser(request);
  const create = async (token: string, path: string, data: Record<string, unknown>) => {
    const response = await request.post(`/api/v4${path}`, { headers: asToken(token), data });
    expect(response.status(), await response.text()).toBe(201);
    return (await response.json()) as { id: number; full_path: string };
  };
  const root = await create(owner.token, "/groups", { name: "Claims", path: uniqueName("claims") });
  const platform = await create(owner.token, "/groups", { name: "Platform", path: "platform", parent_id: root.id });
  const api = await create(owner.token, "/groups", { name: "API", path: "api", parent_id: platform.id });
  const mine = await create(user.token, "/groups", { name: "Mine", path: uniqueName("mine") });
  await create(owner.token, `/groups/${platform.id}/members`, { user_id: user.id, access_level: 40 });

  const config = await discover(baseURL!, app.application_id, app.secret);
  const tokens = await client.genericGrantRequest(config, "password", { username: user.username, password: user.password, scope: "openid" });
  const claims = tokens.claims()!;
  expect([...(claims.groups_direct as string[])].sort()).toEqual([mine.full_path, platform.full_path].sort());
  expect(claims).not.toHaveProperty("groups");
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  expect([...(userinfo.groups as string[])].sort()).toEqual([mine.full_path, platform.full_path, api.full_path].sort());
  expect(userinfo["https://gitlab.org/claims/groups/owner"]).toEqual([mine.full_path]);
  expect(userinfo["https://gitlab.org/claims/groups/maintainer"]).toEqual([platform.full_path]);
  expect(userinfo).not.toHaveProperty("https://gitlab.org/claims/groups/developer");
  expect(userinfo).not.toHaveProperty("groups_direct");
});

test("discovery → authorization code with PKCE (trusted application) → ID token → userinfo → refresh", async ({ request, baseURL }) => {
  const app = await createApplication(request, { trusted: true });
  const user = await createUser(request);
  await signIn(request, user.username, user.password);
  const config = await discover(baseURL!, app.application_id, app.secret);

  const nonce = client.randomNonce();
  const { url: authorizationUrl, verifier, state } = await pkceAuthorizationRequest(config, { scope: "openid api", nonce });
  expect(authorizationUrl.href.startsWith(`${baseURL}/oauth/authorize?`)).toBe(true);

  const authorize = await request.get(authorizationUrl.href, { maxRedirects: 0 });
  expect(authorize.status()).toBe(302);
  const location = new URL(authorize.headers()["location"]!);
  expect(`${location.origin}${location.pathname}`).toBe(callbackUrl);
  // No `iss`, as GitLab: discovery does not promise one, so openid-client expects none.
  expect(location.searchParams.has("iss")).toBe(false);

  // Without the verifier the code is refused, and the refusal does not spend it.
  await expect(client.authorizationCodeGrant(config, location, { expectedState: state, expectedNonce: nonce })).rejects.toMatchObject({
    error: "invalid_request",
  });
  const tokens = await client.authorizationCodeGrant(config, location, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  const claims = tokens.claims()!;
  expect(claims).toMatchObject({ iss: baseURL, sub: String(user.id), aud: app.application_id, nonce, preferred_username: user.username });
  expect(typeof claims.auth_time).toBe("number");
  // Requested without the email scope: no address.
  expect(claims).not.toHaveProperty("email");

  expect((await client.fetchUserInfo(config, tokens.access_token, claims.sub)).preferred_username).toBe(user.username);

  // The code is single use: a second redemption is refused and revokes what the first one issued.
  await expect(
    client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }),
  ).rejects.toMatchObject({ error: "invalid_grant" });
  await expect(client.fetchUserInfo(config, tokens.access_token, claims.sub)).rejects.toMatchObject({ status: 401 });
  await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });

  // A fresh authorization, then a refresh through the library.
  const second = await request.get(authorizationUrl.href.replace(`state=${state}`, `state=${state}2`), { maxRedirects: 0 });
  expect(second.status()).toBe(302);
  const tokens2 = await client.authorizationCodeGrant(config, new URL(second.headers()["location"]!), {
    pkceCodeVerifier: verifier,
    expectedState: `${state}2`,
    expectedNonce: nonce,
  });
  const refreshed = await client.refreshTokenGrant(config, tokens2.refresh_token!);
  expect(refreshed.claims()!.sub).toBe(String(user.id));
  expect((await client.fetchUserInfo(config, refreshed.access_token, claims.sub)).sub).toBe(String(user.id));
});

test("a public client completes the code flow with PKCE and client_id alone", async ({ request, baseURL }) => {
  const app = await createApplication(request, { trusted: true, confidential: false });
  const user = await createUser(request);
  await signIn(request, user.username, user.password);
  const config = await discover(baseURL!, app.application_id);
  const { url, verifier, state } = await pkceAuthorizationRequest(config, { scope: "api" });
  const authorize = await request.get(url.href, { maxRedirects: 0 });
  expect(authorize.status()).toBe(302);
  const tokens = await client.authorizationCodeGrant(config, new URL(authorize.headers()["location"]!), { pkceCodeVerifier: verifier, expectedState: state });
  expect(tokens.scope).toBe("api");
  expect(tokens.id_token).toBeUndefined();
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.scope).toBe("api");
});

test("device authorization starts through the library and polls as pending, then slow_down", async ({ request, baseURL }) => {
  const app = await createApplication(request);
  const config = await discover(baseURL!, app.application_id, app.secret);
  const device = await client.initiateDeviceAuthorization(config, { scope: "api" });
  expect(device).toMatchObject({
    verification_uri: `${baseURL}/oauth/device`,
    verification_uri_complete: `${baseURL}/oauth/device?user_code=${device.user_code}`,
    expires_in: 300,
    interval: 5,
  });
  const poll = () =>
    request.post("/oauth/token", {
      form: {
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
        device_code: device.device_code,
        client_id: app.application_id,
        client_secret: app.secret,
      },
    });
  const pending = await poll();
  expect(pending.status()).toBe(400);
  expect(((await pending.json()) as { error: string }).error).toBe("authorization_pending");
  const tooSoon = await poll();
  expect(tooSoon.status()).toBe(400);
  expect(((await tooSoon.json()) as { error: string }).error).toBe("slow_down");
});
