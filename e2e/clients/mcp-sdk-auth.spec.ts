import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect, test } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createUser } from "../support/api";
import { metadataDocumentTls } from "../support/metadata-tls";
import { connectClient, postMessage } from "../mcp/support";
import { asBearer, approveOnConsentPage, callbackUrl, freshClientAddress, signIn } from "../support/oauth";

/**
 * The official MCP TypeScript SDK's OAuth client (`auth()` from `@modelcontextprotocol/sdk/client/auth.js`), as MCP
 * hosts use it when given nothing but a server URL: authorization server metadata discovery, dynamic client
 * registration, the authorization request with PKCE and a resource indicator, the code exchange and a refresh.
 */

/** What an MCP host keeps between calls of `auth()`, in memory. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  constructor(
    private readonly discovery: OAuthDiscoveryState,
    /** Set for a client identified by its metadata document's URL instead of registering. */
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "MCP SDK host",
      redirect_uris: [callbackUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return "sdk-state";
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /**
   * The protected resource metadata the MCP endpoint publishes (RFC 9728), as a host that read it before keeps it, so
   * this test depends only on the authorization server: the SDK still fetches our metadata document itself.
   */
  discoveryState(): OAuthDiscoveryState {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    Object.assign(this.discovery, state);
  }
}

test("the MCP SDK discovers our metadata, registers itself, and obtains and refreshes mcp tokens bound to the MCP endpoint", async ({ request, baseURL }) => {
  const mcpEndpoint = `${baseURL}/api/v4/mcp`;
  const provider = new MemoryProvider({
    authorizationServerUrl: baseURL!,
    resourceMetadata: { resource: mcpEndpoint, authorization_servers: [baseURL!], scopes_supported: ["mcp"] },
  });
  // The SDK's requests come from an address of their own (registration is limited per address).
  const address = freshClientAddress();
  const requests: string[] = [];
  const fetchFn = (url: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(address)) headers.set(name, value);
    requests.push(`${init?.method ?? "GET"} ${new URL(url).pathname}`);
    return fetch(url, { ...init, headers });
  };

  expect(await auth(provider, { serverUrl: mcpEndpoint, fetchFn })).toBe("REDIRECT");
  expect(requests).toEqual(["GET /.well-known/oauth-authorization-server", "POST /oauth/register"]);
  expect(provider.client).toMatchObject({
    client_id: expect.stringMatching(/^[0-9a-f]{64}$/),
    client_name: "[Unverified Dynamic Application] MCP SDK host",
    token_endpoint_auth_method: "none",
    scope: "mcp",
  });
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${baseURL}/oauth/authorize`);
  expect(Object.fromEntries(authorizationUrl.searchParams)).toEqual({
    response_type: "code",
    client_id: provider.client!.client_id,
    code_challenge: expect.any(String),
    code_challenge_method: "S256",
    redirect_uri: callbackUrl,
    state: "sdk-state",
    scope: "mcp",
    resource: mcpEndpoint,
  });

  // The person approves in their browser; the host receives the code at its redirect URI.
  const user = await createUser(request);
  await signIn(request, user.username, user.password);
  const location = new URL(await approveOnConsentPage(request, authorizationUrl.searchParams));
  expect(location.searchParams.get("state")).toBe("sdk-state");
  const code = location.searchParams.get("code")!;

  expect(await auth(provider, { serverUrl: mcpEndpoint, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
  expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "mcp", expires_in: 7200, refresh_token: expect.any(String) });
  const info = await request.get("/oauth/token/info", { headers: asBearer(provider.saved!.access_token) });
  expect(await info.json()).toMatchObject({ resource_owner_id: user.id, scope: ["mcp"], application: { uid: provider.client!.client_id }, aud: mcpEndpoint });

  // A later call with the refresh token rotates the pair, keeping the audience.
  const first = provider.saved!.access_token;
  expect(await auth(provider, { serverUrl: mcpEndpoint, fetchFn })).toBe("AUTHORIZED");
  expect(provider.saved!.access_token).not.toBe(first);
  const refreshed = await request.get("/oauth/token/info", { headers: asBearer(provider.saved!.access_token) });
  expect(await refreshed.json()).toMatchObject({ scope: ["mcp"], aud: mcpEndpoint });
  expect((await request.get("/oauth/token/info", { headers: asBearer(first) })).status()).toBe(401);

  // The MCP endpoint takes the token bound to it, through the SDK's own client.
  const client = await connectClient(baseURL!, provider.saved!.access_token);
  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("get_mcp_server_version");
  await client.close();

  // A token the same client obtained for another resource is refused there (RFC 8707).
  const verifier = randomBytes(32).toString("base64url");
  const elsewhere = new URLSearchParams({
    response_type: "code",
    client_id: provider.client!.client_id,
    redirect_uri: callbackUrl,
    state: "elsewhere",
    scope: "mcp",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: "https://elsewhere.example/api",
  });
  const elsewhereCode = new URL(await approveOnConsentPage(request, elsewhere)).searchParams.get("code")!;
  const exchanged = await request.post("/oauth/token", {
    form: { grant_type: "authorization_code", code: elsewhereCode, redirect_uri: callbackUrl, client_id: provider.client!.client_id, code_verifier: verifier },
  });
  expect(exchanged.status(), await exchanged.text()).toBe(200);
  const refused = await postMessage(request, ((await exchanged.json()) as OAuthTokens).access_token, { jsonrpc: "2.0", id: 1, method: "ping" });
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toBe(
    `Bearer realm="GitLab", error="invalid_token", error_description="The access token was not issued for this resource.", scope="mcp", resource_metadata="${baseURL}/.well-known/oauth-protected-resource/api/v4/mcp"`,
  );
});

test("the MCP SDK uses its client ID metadata document's URL as client_id when our metadata says we support it", async ({ request, baseURL }) => {
  const mcpEndpoint = `${baseURL}/api/v4/mcp`;
  // The host's own web server publishes its metadata document over https (the servers under test trust its certificate).
  const documentServer = createServer(
    { key: readFileSync(metadataDocumentTls.keyPath), cert: readFileSync(metadataDocumentTls.certPath) },
    (incoming, response) => {
      const self = `https://127.0.0.1:${(documentServer.address() as AddressInfo).port}${incoming.url}`;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ client_id: self, client_name: "MCP SDK by document", redirect_uris: [callbackUrl], token_endpoint_auth_method: "none" }));
    },
  );
  await new Promise<void>((resolve) => documentServer.listen(0, "127.0.0.1", resolve));
  try {
    const clientMetadataUrl = `https://127.0.0.1:${(documentServer.address() as AddressInfo).port}/oauth/mcp-client.json`;
    const provider = new MemoryProvider(
      { authorizationServerUrl: baseURL!, resourceMetadata: { resource: mcpEndpoint, authorization_servers: [baseURL!], scopes_supported: ["mcp"] } },
      clientMetadataUrl,
    );
    const requests: string[] = [];
    const fetchFn = (url: string | URL, init?: RequestInit) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(url).pathname}`);
      return fetch(url, init);
    };
    expect(await auth(provider, { serverUrl: mcpEndpoint, fetchFn })).toBe("REDIRECT");
    // No registration: the URL is the client_id.
    expect(requests).toEqual(["GET /.well-known/oauth-authorization-server"]);
    expect(provider.authorizationUrl!.searchParams.get("client_id")).toBe(clientMetadataUrl);

    const user = await createUser(request);
    await signIn(request, user.username, user.password);
    const consent = await request.get(`/oauth/authorize/consent?${provider.authorizationUrl!.searchParams}`);
    const page = await consent.text();
    expect(page).toContain("[Unverified Dynamic Application] MCP SDK by document");
    expect(page).toContain(`This application is described by a document published at <strong>127.0.0.1:${(documentServer.address() as AddressInfo).port}</strong>`);
    const location = new URL(await approveOnConsentPage(request, provider.authorizationUrl!.searchParams));
    expect(await auth(provider, { serverUrl: mcpEndpoint, authorizationCode: location.searchParams.get("code")!, fetchFn })).toBe("AUTHORIZED");
    const info = await request.get("/oauth/token/info", { headers: asBearer(provider.saved!.access_token) });
    expect(await info.json()).toMatchObject({ scope: ["mcp"], application: { uid: clientMetadataUrl }, aud: mcpEndpoint });
  } finally {
    documentServer.closeAllConnections();
    await new Promise((resolve) => documentServer.close(resolve));
  }
});
