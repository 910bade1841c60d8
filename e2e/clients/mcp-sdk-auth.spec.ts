import { auth, UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InvalidTargetError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createUser, type CreatedUser } from "../support/api";
import { metadataDocumentTls } from "../support/metadata-tls";
import { answered, callTool, mcpPath, ownerWithProject, restGet } from "../mcp/support";
import { freshClientAddress, tokenInfo } from "../support/oauth";
import { consentToMcpClient, startCallbackServer, type UnverifiedMarking } from "../support/oauth-browser";

/**
 * The official MCP TypeScript SDK's client, as an MCP host runs it when given nothing but the server's URL: its
 * Streamable HTTP transport meets a 401, reads our protected resource metadata and authorization server metadata,
 * registers (or names its client ID metadata document), and sends the person to the consent page, here in Chromium;
 * the code that comes back to its loopback redirect URI is exchanged, tools are listed and called, an access token that
 * no longer works is refreshed, and a token bound to another resource is refused.
 */

/** Where the person's browser is sent when the SDK asks for an authorization. */
type Authorize = (authorizationUrl: URL, state: string) => Promise<void>;

/** What an MCP host keeps between connections, in memory, with its browser step supplied by the test. */
class HostProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  discovery: OAuthDiscoveryState | undefined;
  verifier = "";
  /** Each authorization URL the SDK asked the host to open, in order. */
  readonly authorizationUrls: URL[] = [];
  private currentState = "";

  constructor(
    private readonly options: {
      redirectUrl: string;
      clientName: string;
      authorize: Authorize;
      /** Set for a client identified by its metadata document's URL instead of registering. */
      clientMetadataUrl?: string;
      /** Set to ask for tokens bound to a resource other than the one the MCP server's metadata names. */
      resource?: string;
    },
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    if (options.resource) {
      const resource = new URL(options.resource);
      this.validateResourceURL = () => Promise.resolve(resource);
    }
  }

  readonly clientMetadataUrl: string | undefined;
  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.currentState = randomBytes(16).toString("hex");
    return this.currentState;
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

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    await this.options.authorize(url, this.currentState);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  discoveryState() {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
}

/** One HTTP exchange the SDK made, as `METHOD /path STATUS`. */
interface Exchange {
  line: string;
  challenge: string | null;
}

/**
 * The SDK's fetch, recording each exchange, from a client address of its own (registration is limited per address;
 * the servers trust loopback as a proxy).
 */
function recordingFetch(): { exchanges: Exchange[]; fetch: typeof fetch } {
  const exchanges: Exchange[] = [];
  const address = freshClientAddress();
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(address)) headers.set(name, value);
    const response = await fetch(input, { ...init, headers });
    const url = new URL(input instanceof Request ? input.url : input);
    exchanges.push({ line: `${init?.method ?? "GET"} ${url.pathname} ${response.status}`, challenge: response.headers.get("www-authenticate") });
    return response;
  };
  return { exchanges, fetch: recording as typeof fetch };
}

/** A new connection of the host's client through the SDK's Streamable HTTP transport, with `provider` for its tokens. */
function sdkConnection(baseURL: string, provider: HostProvider, fetchFn: typeof fetch): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(mcpPath, baseURL), { authProvider: provider, fetch: fetchFn });
  return { client: new Client({ name: "mcp-sdk-host", version: "1.0.0" }), transport };
}

/**
 * The browser step of a host: the person signs in and approves in Chromium, and the host takes the code from the URL
 * its redirect URI was opened with, after checking the state it sent came back.
 */
function authorizeInBrowser(page: Page, user: CreatedUser, applicationName: string, unverified: UnverifiedMarking) {
  const browser = {
    codes: [] as string[],
    /** The name the consent page shows: a self-registered application's is stamped with who first authorized it. */
    applicationName,
    authorize: (async (url, state) => {
      const params = await consentToMcpClient(page, url.toString(), user, { applicationName: browser.applicationName, unverified });
      expect(params).toEqual({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state });
      browser.codes.push(params.code!);
    }) as Authorize,
  };
  return browser;
}

/** What the MCP endpoint answers a request without a token, or with one it refuses. */
function challenge(baseURL: string, error?: string): string {
  const refusal = error ? `error="invalid_token", error_description="${error}", ` : "";
  return `Bearer realm="GitLab", ${refusal}scope="mcp", resource_metadata="${baseURL}/.well-known/oauth-protected-resource/api/v4/mcp"`;
}

/** What the SDK asks for after a refusal, knowing nothing but the MCP endpoint's URL. */
const discoveryExchanges = [
  "POST /api/v4/mcp 401",
  "GET /.well-known/oauth-protected-resource/api/v4/mcp 200",
  "GET /.well-known/oauth-authorization-server 200",
];

/**
 * The host's first connection, with no token: the server refuses the first message with a challenge naming its
 * metadata, and the SDK goes from there to the browser; the connection fails until the code is exchanged.
 */
async function connectWithoutToken(baseURL: string, provider: HostProvider, recorder: ReturnType<typeof recordingFetch>): Promise<StreamableHTTPClientTransport> {
  const { client, transport } = sdkConnection(baseURL, provider, recorder.fetch);
  await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);
  expect(recorder.exchanges[0]).toEqual({ line: "POST /api/v4/mcp 401", challenge: challenge(baseURL) });
  return transport;
}

test("the MCP SDK, given only the MCP endpoint's URL, discovers, registers, is authorized in the browser, calls tools, refreshes, and is refused a token of another resource", async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const mcpEndpoint = `${baseURL}${mcpPath}`;
  const { user, project } = await ownerWithProject(request);
  const callback = await startCallbackServer();
  try {
    const recorder = recordingFetch();
    const browser = authorizeInBrowser(page, user, "[Unverified Dynamic Application] MCP SDK host", { kind: "dynamic" });
    const provider = new HostProvider({ redirectUrl: callback.url, clientName: "MCP SDK host", authorize: browser.authorize });

    const first = await connectWithoutToken(baseURL!, provider, recorder);
    expect(recorder.exchanges.map((exchange) => exchange.line)).toEqual([...discoveryExchanges, "POST /oauth/register 201"]);
    expect(provider.client).toMatchObject({
      client_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      client_name: "[Unverified Dynamic Application] MCP SDK host",
      redirect_uris: [callback.url],
      token_endpoint_auth_method: "none",
      scope: "mcp",
    });
    expect(provider.authorizationUrls).toHaveLength(1);
    const authorizationUrl = provider.authorizationUrls[0]!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${baseURL}/oauth/authorize`);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toEqual({
      response_type: "code",
      client_id: provider.client!.client_id,
      code_challenge: expect.any(String),
      code_challenge_method: "S256",
      redirect_uri: callback.url,
      state: expect.stringMatching(/^[0-9a-f]{32}$/),
      scope: "mcp",
      resource: mcpEndpoint,
    });
    expect(browser.codes).toHaveLength(1);

    // The code the browser brought back is exchanged for tokens bound to the MCP endpoint.
    recorder.exchanges.length = 0;
    await first.finishAuth(browser.codes[0]!);
    expect(recorder.exchanges.map((exchange) => exchange.line)).toEqual(["POST /oauth/token 200"]);
    expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "mcp", expires_in: 7200, refresh_token: expect.any(String) });
    expect(await tokenInfo(request, provider.saved!.access_token)).toMatchObject({
      status: 200,
      body: { resource_owner_id: user.id, scope: ["mcp"], application: { uid: provider.client!.client_id }, aud: mcpEndpoint },
    });

    // Connected again, the host lists the tools and calls them.
    const { client, transport } = sdkConnection(baseURL!, provider, recorder.fetch);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["get_mcp_server_version", "create_issue", "get_issue"]));
    expect(await callTool(client, "get_mcp_server_version")).toEqual({
      content: [{ type: "text", text: "16.10.0" }],
      structuredContent: { version: "16.10.0", revision: expect.any(String) },
      isError: false,
    });
    const created = answered(await callTool(client, "create_issue", { id: project.id, title: "Filed by an MCP host", description: "Through OAuth." })) as {
      iid: number;
    };
    expect(created).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: "Filed by an MCP host",
      description: "Through OAuth.",
      state: "opened",
      author: { id: user.id, username: user.username },
    });
    expect(created).toEqual(await restGet(request, user.token, `/projects/${project.id}/issues/${created.iid}`));
    expect(answered(await callTool(client, "get_issue", { id: project.id, issue_iid: created.iid }))).toEqual(created);

    // The access token stops working (as when its two hours are over): the SDK refreshes and the call goes through.
    const expired = provider.saved!;
    provider.saved = { ...expired, access_token: randomBytes(32).toString("hex") };
    recorder.exchanges.length = 0;
    expect(answered(await callTool(client, "get_issue", { id: project.id, issue_iid: created.iid }))).toEqual(created);
    expect(recorder.exchanges.map((exchange) => exchange.line)).toEqual(["POST /api/v4/mcp 401", "POST /oauth/token 200", "POST /api/v4/mcp 200"]);
    expect(recorder.exchanges[0]!.challenge).toBe(challenge(baseURL!, "The access token is invalid"));
    expect(provider.saved!.access_token).not.toBe(expired.access_token);
    expect(provider.saved!.refresh_token).not.toBe(expired.refresh_token);
    expect(await tokenInfo(request, provider.saved!.access_token)).toMatchObject({ status: 200, body: { scope: ["mcp"], aud: mcpEndpoint } });
    // The refresh rotated the pair: the tokens before it are revoked.
    expect((await tokenInfo(request, expired.access_token)).status).toBe(401);
    expect(provider.authorizationUrls).toHaveLength(1);
    await client.close();

    // The same client, asking for another resource (RFC 8707), is authorized in the browser for it.
    browser.applicationName = `[Unverified Dynamic Application] MCP SDK host — authorized by @${user.username}`;
    const elsewhere = "https://elsewhere.example/api";
    const other = new HostProvider({ redirectUrl: callback.url, clientName: "MCP SDK host", authorize: browser.authorize, resource: elsewhere });
    other.client = provider.client;
    expect(await auth(other, { serverUrl: mcpEndpoint, fetchFn: recorder.fetch })).toBe("REDIRECT");
    expect(other.authorizationUrls[0]!.searchParams.get("resource")).toBe(elsewhere);
    expect(await auth(other, { serverUrl: mcpEndpoint, authorizationCode: browser.codes[1]!, fetchFn: recorder.fetch })).toBe("AUTHORIZED");
    expect(await tokenInfo(request, other.saved!.access_token)).toMatchObject({ status: 200, body: { scope: ["mcp"], aud: elsewhere } });

    // A host holding that access token is refused by the MCP endpoint; the SDK asks the person again, for this endpoint.
    const refusedRecorder = recordingFetch();
    const holder = new HostProvider({ redirectUrl: callback.url, clientName: "MCP SDK host", authorize: () => Promise.resolve() });
    holder.client = provider.client;
    holder.saved = { access_token: other.saved!.access_token, token_type: "Bearer" };
    const refused = sdkConnection(baseURL!, holder, refusedRecorder.fetch);
    await expect(refused.client.connect(refused.transport)).rejects.toThrow(UnauthorizedError);
    expect(refusedRecorder.exchanges.map((exchange) => exchange.line)).toEqual(discoveryExchanges);
    expect(refusedRecorder.exchanges[0]!.challenge).toBe(challenge(baseURL!, "The access token was not issued for this resource."));
    expect(holder.authorizationUrls).toHaveLength(1);
    expect(holder.authorizationUrls[0]!.searchParams.get("resource")).toBe(mcpEndpoint);

    // Holding the refresh token as well, the SDK first tries a refresh for this endpoint: the grant was given for the
    // other resource, so the token endpoint refuses to name this one (invalid_target), and the call fails.
    const pairRecorder = recordingFetch();
    const pairHolder = new HostProvider({ redirectUrl: callback.url, clientName: "MCP SDK host", authorize: () => Promise.resolve() });
    pairHolder.client = provider.client;
    pairHolder.saved = other.saved;
    const pair = sdkConnection(baseURL!, pairHolder, pairRecorder.fetch);
    await expect(pair.client.connect(pair.transport)).rejects.toThrow(InvalidTargetError);
    expect(pairRecorder.exchanges.map((exchange) => exchange.line)).toEqual([...discoveryExchanges, "POST /oauth/token 400"]);
    expect(pairHolder.authorizationUrls).toHaveLength(0);
    expect(await tokenInfo(request, other.saved!.access_token)).toMatchObject({ status: 200, body: { aud: elsewhere } });
  } finally {
    await callback.close();
  }
});

test("the MCP SDK names its client ID metadata document instead of registering, and is authorized in the browser", async ({ page, request, baseURL }) => {
  test.setTimeout(90_000);
  const mcpEndpoint = `${baseURL}${mcpPath}`;
  const user = await createUser(request);
  const callback = await startCallbackServer();
  // The host's own web server publishes its metadata document over https (the servers under test trust its certificate).
  const documentServer = createServer(
    { key: readFileSync(metadataDocumentTls.keyPath), cert: readFileSync(metadataDocumentTls.certPath) },
    (incoming, response) => {
      const self = `https://127.0.0.1:${(documentServer.address() as AddressInfo).port}${incoming.url}`;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ client_id: self, client_name: "MCP SDK by document", redirect_uris: [callback.url], token_endpoint_auth_method: "none" }));
    },
  );
  await new Promise<void>((resolve) => documentServer.listen(0, "127.0.0.1", resolve));
  try {
    const documentHost = `127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
    const clientMetadataUrl = `https://${documentHost}/oauth/mcp-client.json`;
    const recorder = recordingFetch();
    const browser = authorizeInBrowser(page, user, "[Unverified Dynamic Application] MCP SDK by document", { kind: "metadata_document", documentHost });
    const provider = new HostProvider({ redirectUrl: callback.url, clientName: "MCP SDK by document", authorize: browser.authorize, clientMetadataUrl });

    const first = await connectWithoutToken(baseURL!, provider, recorder);
    // No registration: the document's URL is the client_id.
    expect(recorder.exchanges.map((exchange) => exchange.line)).toEqual(discoveryExchanges);
    expect(provider.authorizationUrls).toHaveLength(1);
    expect(provider.authorizationUrls[0]!.searchParams.get("client_id")).toBe(clientMetadataUrl);
    expect(provider.authorizationUrls[0]!.searchParams.get("resource")).toBe(mcpEndpoint);

    await first.finishAuth(browser.codes[0]!);
    expect(await tokenInfo(request, provider.saved!.access_token)).toMatchObject({
      status: 200,
      body: { resource_owner_id: user.id, scope: ["mcp"], application: { uid: clientMetadataUrl }, aud: mcpEndpoint },
    });
    const { client, transport } = sdkConnection(baseURL!, provider, recorder.fetch);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("get_mcp_server_version");
    expect(answered(await callTool(client, "list_projects", { owned: true }))).toEqual([]);
    await client.close();
  } finally {
    documentServer.closeAllConnections();
    await new Promise((resolve) => documentServer.close(resolve));
    await callback.close();
  }
});
