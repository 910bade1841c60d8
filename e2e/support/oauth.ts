import { randomBytes } from "node:crypto";
import { expect, type APIRequestContext } from "@playwright/test";
import * as client from "openid-client";
import { asToken, rootToken, uniqueName } from "./api";

/** A redirect URI nothing listens on: tests read the Location header and never follow it. */
export const callbackUrl = "http://127.0.0.1:9/callback";

export interface CreatedApplication {
  id: number;
  application_id: string;
  application_name: string;
  callback_url: string;
  confidential: boolean;
  secret: string;
}

export async function createApplication(
  request: APIRequestContext,
  options: { scopes?: string; confidential?: boolean; trusted?: boolean; redirectUri?: string } = {},
): Promise<CreatedApplication> {
  const response = await request.post("/api/v4/applications", {
    headers: asToken(rootToken),
    data: {
      name: uniqueName("app"),
      redirect_uri: options.redirectUri ?? callbackUrl,
      scopes: options.scopes ?? "api read_user openid profile email",
      confidential: options.confidential ?? true,
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  const application = (await response.json()) as CreatedApplication;
  if (options.trusted) {
    const updated = await request.put(`/api/v4/applications/${application.id}`, { headers: asToken(rootToken), data: { trusted: true } });
    expect(updated.status(), await updated.text()).toBe(200);
    expect(await updated.json()).toMatchObject({ id: application.id, trusted: true, implicit_grant_enabled: false });
  }
  return application;
}

/** Signs in through next-auth's credentials endpoint; the session cookie stays in `request`. */
export async function signIn(request: APIRequestContext, login: string, password: string): Promise<void> {
  const csrf = await request.get("/api/auth/csrf");
  expect(csrf.status()).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, login, password, json: "true" },
    maxRedirects: 0,
  });
  expect([200, 302], await response.text()).toContain(response.status());
  const session = await request.get("/api/auth/session");
  expect(((await session.json()) as { user?: { username?: string } }).user?.username).toBe(login);
}

/** openid-client's view of the server: discovery over plain http, as the test servers are. */
export async function discover(baseURL: string, clientId: string, secret?: string): Promise<client.Configuration> {
  return client.discovery(new URL(baseURL), clientId, secret, secret === undefined ? client.None() : undefined, {
    execute: [client.allowInsecureRequests],
  });
}

export function basicAuth(clientId: string, secret: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}` };
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
  id_token?: string;
}

/** A token by the password grant through the raw endpoint. */
export async function passwordToken(
  request: APIRequestContext,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
): Promise<TokenResponse> {
  const response = await request.post("/oauth/token", {
    form: { grant_type: "password", username: user.username, password: user.password, ...extra },
  });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as TokenResponse;
}

/**
 * Approves an authorization request the way the consent page's form does, as the person signed in on `request`:
 * reads the page's authenticity token and posts the decision. Returns where the decision sends the browser.
 */
export async function approveOnConsentPage(request: APIRequestContext, query: URLSearchParams): Promise<string> {
  const page = await request.get(`/oauth/authorize/consent?${query}`, { maxRedirects: 0 });
  expect(page.status(), await page.text()).toBe(200);
  const authenticityToken = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!authenticityToken) throw new Error("the consent page has no authenticity token");
  const decision = await request.post("/oauth/authorize/decision", {
    form: { ...Object.fromEntries(query), authenticity_token: authenticityToken, decision: "approve" },
    maxRedirects: 0,
  });
  expect(decision.status(), await decision.text()).toBe(302);
  return decision.headers()["location"]!;
}

/** An authorization request built by openid-client for `callbackUrl`, with PKCE (S256) and a fresh state. */
export async function pkceAuthorizationRequest(
  config: client.Configuration,
  parameters: { scope: string; nonce?: string },
): Promise<{ url: URL; verifier: string; state: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl,
    ...parameters,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });
  return { url, verifier, state };
}

/** What `POST /oauth/register` answers, GitLab's body. */
export interface DynamicClient {
  client_id: string;
  client_id_issued_at: number;
  redirect_uris: string[];
  token_endpoint_auth_method: "none";
  grant_types: string[];
  require_pkce: true;
  client_name: string;
  scope: "mcp";
  dynamic: true;
}

/** A client address of its own: the server trusts loopback as a proxy, so `X-Forwarded-For` says who is calling. */
export function freshClientAddress(): Record<string, string> {
  return { "X-Forwarded-For": `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}` };
}

/**
 * Registers a client through dynamic client registration, from an address of its own (each address may register five
 * an hour, GitLab's limit).
 */
export async function registerDynamicClient(request: APIRequestContext, metadata: Record<string, unknown>): Promise<DynamicClient> {
  const response = await request.post("/oauth/register", { headers: freshClientAddress(), data: metadata });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as DynamicClient;
}

/** An OAuth access token the way OAuth clients send it (RFC 6750). */
export function asBearer(accessToken: string): Record<string, string> {
  return { Authorization: `Bearer ${accessToken}` };
}

/** What `/oauth/token/info` says of an access token: its status, and its body. */
export async function tokenInfo(request: APIRequestContext, accessToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const info = await request.get("/oauth/token/info", { headers: asBearer(accessToken) });
  return { status: info.status(), body: (await info.json()) as Record<string, unknown> };
}
