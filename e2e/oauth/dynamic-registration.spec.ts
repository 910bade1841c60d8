import { expect, test } from "@playwright/test";
import { createUser } from "../support/api";
import { postUntilAnswered } from "../support/http";
import { asBearer, approveOnConsentPage, callbackUrl, freshClientAddress, passwordToken, registerDynamicClient, signIn, type TokenResponse } from "../support/oauth";
import { pkcePair } from "../support/oauth-browser";

/**
 * Dynamic client registration (RFC 7591) and what MCP clients read before it, black-box against the production
 * server: the discovery documents, `POST /oauth/register`'s answers and refusals, its flood limit, and `mcp` tokens
 * kept away from the REST API.
 */

const invalidClientMetadata = (description: string) => ({ error: "invalid_client_metadata", error_description: description });

test("both discovery documents announce registration, client metadata documents, PKCE methods and the mcp scope, beside everything they said before", async ({
  request,
  baseURL,
}) => {
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    const response = await request.get(path);
    expect(response.status()).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual([
      "issuer",
      "authorization_endpoint",
      "token_endpoint",
      "revocation_endpoint",
      "introspection_endpoint",
      "userinfo_endpoint",
      "jwks_uri",
      "device_authorization_endpoint",
      "registration_endpoint",
      "scopes_supported",
      "response_types_supported",
      "response_modes_supported",
      "grant_types_supported",
      "token_endpoint_auth_methods_supported",
      "revocation_endpoint_auth_methods_supported",
      "introspection_endpoint_auth_methods_supported",
      "subject_types_supported",
      "id_token_signing_alg_values_supported",
      "claim_types_supported",
      "claims_supported",
      "code_challenge_methods_supported",
      "client_id_metadata_document_supported",
    ]);
    expect(document).toMatchObject({
      issuer: baseURL,
      registration_endpoint: `${baseURL}/oauth/register`,
      code_challenge_methods_supported: ["plain", "S256"],
      client_id_metadata_document_supported: true,
    });
    expect(document.scopes_supported).toContain("mcp");
  }
});

test("registering answers 201 with GitLab's body, and the client can only be public, PKCE-bound and limited to mcp", async ({ request }) => {
  const response = await request.post("/oauth/register", {
    headers: freshClientAddress(),
    data: { client_name: "Claude Code", redirect_uris: [callbackUrl], scope: "api", token_endpoint_auth_method: "client_secret_post" },
  });
  expect(response.status()).toBe(201);
  expect(response.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(response.headers()["cache-control"]).toBe("no-store");
  expect(response.headers()["access-control-allow-origin"]).toBe("*");
  const body = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual([
    "client_id",
    "client_id_issued_at",
    "redirect_uris",
    "token_endpoint_auth_method",
    "grant_types",
    "require_pkce",
    "client_name",
    "scope",
    "dynamic",
  ]);
  expect(body).toEqual({
    client_id: expect.stringMatching(/^[0-9a-f]{64}$/),
    client_id_issued_at: expect.any(Number),
    redirect_uris: [callbackUrl],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code"],
    require_pkce: true,
    client_name: "[Unverified Dynamic Application] Claude Code",
    scope: "mcp",
    dynamic: true,
  });
  expect(Math.abs((body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);
  // Browser-based MCP clients register cross-origin.
  const preflight = await request.fetch("/oauth/register", { method: "OPTIONS" });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()["access-control-allow-methods"]).toBe("GET, POST, OPTIONS");
});

test("hostile redirect URIs, bad names and malformed bodies are refused with invalid_client_metadata", async ({ request }) => {
  const refusal = async (data: unknown, description: string, status = 400) => {
    const response = await request.post("/oauth/register", {
      headers: { ...freshClientAddress(), "Content-Type": "application/json" },
      data: typeof data === "string" ? Buffer.from(data) : data,
    });
    expect(response.status(), await response.text()).toBe(status);
    expect(response.headers()["content-type"]).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual(invalidClientMetadata(description));
  };
  await refusal({ client_name: "Evil", redirect_uris: ["javascript:alert(document.cookie)"] }, "Redirect URI is forbidden by the server.");
  await refusal({ client_name: "Evil", redirect_uris: ["https://client.example/cb#token"] }, "Redirect URI cannot contain a fragment.");
  await refusal({ client_name: "x".repeat(200), redirect_uris: [callbackUrl] }, "client_name is too long");
  await refusal("{\"client_name\":", "The request body is not valid JSON.");
  await refusal(JSON.stringify({ client_name: "A\u0000B", redirect_uris: [callbackUrl] }), "client_name must not contain NUL characters");
});

test("a body over 16 KiB is refused with 413 as it arrives, never read whole", async ({ request, baseURL }) => {
  const large = await request.post("/oauth/register", {
    headers: freshClientAddress(),
    data: { client_name: "Large", redirect_uris: [callbackUrl], padding: "x".repeat(20_000) },
  });
  expect(large.status()).toBe(413);
  expect(await large.json()).toEqual(invalidClientMetadata("The request body is larger than 16384 bytes."));

  const endless = await postUntilAnswered(baseURL!, "/oauth/register", { "Content-Type": "application/json", ...freshClientAddress() });
  expect(endless.answeredBeforeEnd).toBe(true);
  expect(endless.status).toBe(413);
  expect(JSON.parse(endless.body)).toEqual(invalidClientMetadata("The request body is larger than 16384 bytes."));
});

test("a flood of registrations from one address is refused after five an hour, GitLab's limit", async ({ request }) => {
  const flooder = freshClientAddress();
  for (let registration = 0; registration < 5; registration++) {
    const response = await request.post("/oauth/register", { headers: flooder, data: { client_name: `Flood ${registration}`, redirect_uris: [callbackUrl] } });
    expect(response.status()).toBe(201);
  }
  const refused = await request.post("/oauth/register", { headers: flooder, data: { client_name: "One too many", redirect_uris: [callbackUrl] } });
  expect(refused.status()).toBe(429);
  const headers = refused.headers();
  expect(headers["ratelimit-name"]).toBe("oauth_dynamic_registration");
  expect(headers["ratelimit-limit"]).toBe("5");
  expect(headers["ratelimit-remaining"]).toBe("0");
  expect(Number(headers["retry-after"])).toBeGreaterThan(3000);
  expect(await refused.json()).toEqual({ error: "temporarily_unavailable", error_description: `Too many requests. Retry after ${headers["retry-after"]} seconds.` });
  // Another address registers as before.
  await registerDynamicClient(request, { client_name: "Neighbour", redirect_uris: [callbackUrl] });
});

test("a registered client gets an mcp token bound to the MCP endpoint through PKCE, and the REST API refuses it", async ({ request, baseURL }) => {
  const client = await registerDynamicClient(request, { client_name: "Agent", redirect_uris: [callbackUrl] });
  const user = await createUser(request);
  await signIn(request, user.username, user.password);
  const { verifier, challenge } = pkcePair();
  const resource = `${baseURL}/api/v4/mcp`;
  const query = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: callbackUrl,
    response_type: "code",
    state: "s1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource,
  });
  // Without PKCE: GitLab's error page, never a redirect to the unverified client.
  const withoutPkce = await request.get(`/oauth/authorize?client_id=${client.client_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code`, {
    maxRedirects: 0,
  });
  expect(withoutPkce.status()).toBe(400);
  expect(withoutPkce.headers()["location"]).toBeUndefined();
  expect(await withoutPkce.text()).toContain(
    "pkce_required_for_dynamic_applications: PKCE is required for dynamically registered applications: send a code_challenge with code_challenge_method S256.",
  );

  const location = new URL(await approveOnConsentPage(request, query));
  const code = location.searchParams.get("code")!;
  expect(location.searchParams.get("state")).toBe("s1");
  const exchange = { grant_type: "authorization_code", code, redirect_uri: callbackUrl, client_id: client.client_id };
  const withoutVerifier = await request.post("/oauth/token", { form: exchange });
  expect(withoutVerifier.status()).toBe(400);
  expect(await withoutVerifier.json()).toEqual({ error: "invalid_request", error_description: "PKCE code_verifier is required for dynamic OAuth applications" });
  const otherResource = await request.post("/oauth/token", { form: { ...exchange, code_verifier: verifier, resource: `${baseURL}/api/v4` } });
  expect(otherResource.status()).toBe(400);
  expect(await otherResource.json()).toEqual({ error: "invalid_target", error_description: "The resource must be the one the authorization was given for." });
  const exchanged = await request.post("/oauth/token", { form: { ...exchange, code_verifier: verifier, resource } });
  expect(exchanged.status(), await exchanged.text()).toBe(200);
  const tokens = (await exchanged.json()) as TokenResponse;
  expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "mcp", refresh_token: expect.stringMatching(/^[0-9a-f]{64}$/) });

  const info = await request.get("/oauth/token/info", { headers: asBearer(tokens.access_token) });
  expect(await info.json()).toEqual({
    resource_owner_id: user.id,
    scope: ["mcp"],
    expires_in: expect.any(Number),
    application: { uid: client.client_id },
    created_at: tokens.created_at,
    scopes: ["mcp"],
    expires_in_seconds: expect.any(Number),
    aud: resource,
  });

  const refreshed = await request.post("/oauth/token", { form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id } });
  expect(refreshed.status(), await refreshed.text()).toBe(200);
  const refreshedTokens = (await refreshed.json()) as TokenResponse;
  expect(((await (await request.get("/oauth/token/info", { headers: asBearer(refreshedTokens.access_token) })).json()) as { aud: string }).aud).toBe(resource);

  const user401 = await request.get("/api/v4/user", { headers: asBearer(refreshedTokens.access_token) });
  expect(user401.status()).toBe(403);
  expect(await user401.json()).toEqual({
    error: "insufficient_scope",
    error_description: "The request requires higher privileges than provided by the access token.",
    scope: "read_user read_api api",
  });
});

test("an mcp token is refused by every kind of REST endpoint, as GitLab's are outside the MCP endpoint", async ({ request }) => {
  const user = await createUser(request);
  const mcp = await passwordToken(request, user, { scope: "mcp" });
  expect(mcp.scope).toBe("mcp");
  for (const path of ["/api/v4/user", "/api/v4/projects", `/api/v4/users/${user.id}/events`, "/api/v4/personal_access_tokens"]) {
    const response = await request.get(path, { headers: asBearer(mcp.access_token) });
    expect(response.status(), path).toBe(403);
    expect(await response.json()).toMatchObject({ error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token." });
  }
  const write = await request.post("/api/v4/projects", { headers: asBearer(mcp.access_token), data: { name: "Not with mcp" } });
  expect(write.status()).toBe(403);
});
