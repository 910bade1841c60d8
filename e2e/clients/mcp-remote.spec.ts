import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "@playwright/test";
import { answered, callTool, mcpPath, ownerWithProject } from "../mcp/support";
import { tokenInfo } from "../support/oauth";
import { consentToMcpClient } from "../support/oauth-browser";

/**
 * mcp-remote, the stdio bridge desktop MCP hosts run for remote servers, given nothing but the MCP endpoint's URL: it
 * discovers our metadata, registers itself, opens the person's browser at the consent page, receives the code on its
 * own loopback callback server, and then carries a stdio client's messages to the server with the token it obtained;
 * started again later, it refreshes that token by itself.
 *
 * How it opens the browser: `open(url)` from the `open` package, which on Linux runs the `xdg-open` script it ships
 * (or the `xdg-open` on PATH when that copy is not executable). With no desktop session that script runs `$BROWSER`;
 * should it fail, mcp-remote tries `/usr/bin/xdg-open`, `gio` and `x-www-browser` itself. Here a script that only
 * writes the URL down stands first on PATH as `xdg-open` and is named by `$BROWSER`, so no real browser is started and
 * the test opens the URL in Chromium itself.
 *
 * Its callback server listens on a port derived from the server URL (3335-49150, walking up when one is taken) at
 * `http://localhost:<port>/oauth/callback`, the redirect URI it registers. It sends the `resource` parameter (RFC 8707)
 * the SDK it bundles takes from our protected resource metadata, on the authorization and token requests alike, so
 * its token is bound to the MCP endpoint; with `--disable-resource-parameter` it sends none and the token, bound to
 * no resource, is accepted there too.
 */

const proxyScript = path.resolve("node_modules/mcp-remote/dist/proxy.js");

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Where one person's mcp-remote keeps its sign-ins, and its stand-in for a browser. */
interface Home {
  dir: string;
  configDir: string;
  /** Every URL mcp-remote asked to open, one a line. */
  openedUrls: string;
  env: Record<string, string>;
}

/** A home of its own, so nothing of the machine's (or another run's) sign-ins is read or written. */
function makeHome(): Home {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-remote-"));
  const bin = path.join(dir, "bin");
  const openedUrls = path.join(dir, "opened-urls");
  mkdirSync(bin);
  const opener = path.join(bin, "xdg-open");
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${openedUrls}'\n`, { mode: 0o755 });
  const configDir = path.join(dir, "config");
  return { dir, configDir, openedUrls, env: { PATH: `${bin}:${process.env.PATH ?? ""}`, BROWSER: opener, HOME: dir, MCP_REMOTE_CONFIG_DIR: configDir } };
}

function openedUrls(home: Home): string[] {
  return existsSync(home.openedUrls) ? readFileSync(home.openedUrls, "utf8").trimEnd().split("\n") : [];
}

/** What mcp-remote saved under `suffix` (one file per server). */
function saved(home: Home, suffix: string): { file: string; content: Record<string, unknown> } {
  const store = path.join(home.configDir, "mcp-remote-v1");
  const files = readdirSync(store).filter((name) => name.endsWith(suffix));
  expect(files).toHaveLength(1);
  const file = path.join(store, files[0]!);
  return { file, content: JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> };
}

/** One run of mcp-remote, as a desktop host starts it, with the SDK's client speaking stdio to it. */
function startBridge(home: Home, args: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [proxyScript, ...args], env: home.env, stderr: "pipe" });
  const client = new Client({ name: "stdio-host", version: "1.0.0" });
  // Read what the bridge logs, so its pipe never fills, and to tell why if it fails.
  let logged = "";
  transport.stderr?.on("data", (chunk: Buffer) => (logged += chunk.toString()));
  const connecting = client.connect(transport).then(
    () => null,
    (error: unknown) => error,
  );
  return {
    client,
    logs: () => logged,
    /** Resolves once the client's initialize went through the bridge. */
    connected: async () => {
      const failure = await connecting;
      if (failure) throw new Error(`mcp-remote did not connect: ${String(failure)}\n${logged}`);
    },
    stop: async () => {
      const pid = transport.pid;
      // The SDK's close() ends the child whatever state it is in: its stdin closed, then SIGTERM, then SIGKILL, 2 s apart.
      await client.close();
      if (pid !== null) await expect.poll(() => isRunning(pid), { message: "mcp-remote outlived the test" }).toBe(false);
    },
  };
}

// mcp-remote instances started for the same server URL share one sign-in through the callback port (a second one waits
// on the first's callback server, and takes over its port when it exits): two at once would each receive the other's
// code. They run one after the other.
test.describe.configure({ mode: "default" });

/** As it runs by default, and told to leave the resource indicator out, as some authorization servers want. */
const variants = [
  { flags: [], title: "naming the MCP endpoint as the resource", bound: true },
  { flags: ["--disable-resource-parameter"], title: "without a resource indicator", bound: false },
];

for (const { flags, title, bound } of variants) {
  test(`mcp-remote, given only the MCP endpoint's URL, registers, has the person consent in the browser, bridges a stdio client to the tools, and refreshes, ${title}`, async ({
    page,
    request,
    baseURL,
  }) => {
    test.setTimeout(90_000);
    const mcpEndpoint = `${baseURL}${mcpPath}`;
    const { user, project } = await ownerWithProject(request);
    const home = makeHome();
    const bridges: ReturnType<typeof startBridge>[] = [];
    try {
      const first = startBridge(home, [mcpEndpoint, ...flags]);
      bridges.push(first);

      // The bridge opened the consent page "in the browser": the person goes through it in Chromium.
      await expect.poll(() => openedUrls(home), { timeout: 30_000, message: `mcp-remote opened no URL:\n${first.logs()}` }).toHaveLength(1);
      const authorizationUrl = new URL(openedUrls(home)[0]!);
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${baseURL}/oauth/authorize`);
      const params = Object.fromEntries(authorizationUrl.searchParams);
      expect(params).toEqual({
        response_type: "code",
        client_id: expect.stringMatching(/^[0-9a-f]{64}$/),
        code_challenge: expect.any(String),
        code_challenge_method: "S256",
        redirect_uri: expect.stringMatching(/^http:\/\/localhost:\d+\/oauth\/callback$/),
        state: expect.any(String),
        scope: "mcp",
        ...(bound ? { resource: mcpEndpoint } : {}),
      });
      const applicationName = "[Unverified Dynamic Application] MCP CLI Proxy";
      const callback = await consentToMcpClient(page, authorizationUrl.toString(), user, { applicationName, unverified: { kind: "dynamic" } });
      expect(callback).toEqual({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state: params.state });
      // mcp-remote's own callback page.
      await expect(page.locator("body")).toContainText("Authorization successful");

      await first.connected();
      expect((await first.client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["get_project", "create_issue", "get_issue"]));
      expect(answered(await callTool(first.client, "get_project", { id: project.id }))).toMatchObject({
        id: project.id,
        path_with_namespace: project.path_with_namespace,
      });
      const created = answered(await callTool(first.client, "create_issue", { id: project.id, title: "Through the bridge" }));
      expect(created).toMatchObject({ iid: 1, title: "Through the bridge", author: { id: user.id, username: user.username } });
      expect(answered(await callTool(first.client, "get_issue", { id: project.id, issue_iid: 1 }))).toEqual(created);
      await first.stop();

      // What it saved: the client it registered (the consent page said it registered itself), and a token for the MCP
      // endpoint alone.
      expect(saved(home, "_client_info.json").content).toMatchObject({
        client_id: params.client_id,
        client_name: applicationName,
        redirect_uris: [params.redirect_uri],
        token_endpoint_auth_method: "none",
        scope: "mcp",
      });
      const tokens = saved(home, "_tokens.json");
      expect(tokens.content).toMatchObject({ token_type: "Bearer", scope: "mcp", refresh_token: expect.any(String) });
      const issued = await tokenInfo(request, tokens.content.access_token as string);
      expect(issued).toMatchObject({ status: 200, body: { resource_owner_id: user.id, scope: ["mcp"], application: { uid: params.client_id } } });
      // Bound to the MCP endpoint, or (asked for no resource) to none: the MCP endpoint took it either way.
      expect(issued.body.aud).toBe(bound ? mcpEndpoint : undefined);

      // Started again, as a host starts it at each launch, with an access token that has stopped working: it refreshes
      // with the refresh token it saved, and opens no browser.
      writeFileSync(tokens.file, JSON.stringify({ ...tokens.content, access_token: randomBytes(32).toString("hex") }));
      const second = startBridge(home, [mcpEndpoint, ...flags]);
      bridges.push(second);
      await second.connected();
      expect(answered(await callTool(second.client, "get_issue", { id: project.id, issue_iid: 1 }))).toEqual(created);
      expect(openedUrls(home)).toHaveLength(1);
      const refreshed = saved(home, "_tokens.json").content;
      expect(refreshed.access_token).not.toBe(tokens.content.access_token);
      expect(refreshed.refresh_token).not.toBe(tokens.content.refresh_token);
      const described = await tokenInfo(request, refreshed.access_token as string);
      expect(described).toMatchObject({ status: 200, body: { scope: ["mcp"], application: { uid: params.client_id } } });
      expect(described.body.aud).toBe(bound ? mcpEndpoint : undefined);
      expect((await tokenInfo(request, tokens.content.access_token as string)).status).toBe(401);
    } finally {
      for (const bridge of bridges) await bridge.stop();
      rmSync(home.dir, { recursive: true, force: true });
    }
  });
}
