import { expect, test, type Page } from "@playwright/test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createUser, uniqueName, type CreatedUser } from "../support/api";
import { signIn, signOut, withFreshApi } from "../support/browser";
import { asBearer, registerDynamicClient } from "../support/oauth";
import { authorizePath, landOnCallback, pkcePair, startCallbackServer } from "../support/oauth-browser";

/**
 * Clients that registered themselves, as a person and an administrator meet them in the browser: the consent page
 * says they are unverified, and the admin area trusts (no more consent) or deletes them.
 */

function authorizeParams(clientId: string, redirectUri: string, challenge: string, state: string): Record<string, string> {
  return { client_id: clientId, redirect_uri: redirectUri, response_type: "code", state, code_challenge: challenge, code_challenge_method: "S256" };
}

/** Back from the client's callback page to the site, then signed in as `user`. */
async function switchTo(page: Page, user: CreatedUser): Promise<void> {
  await page.goto("/projects");
  await signOut(page);
  await signIn(page, user.username, user.password);
}

test("a dynamically registered client is marked unverified on the consent page, and an admin can trust it, then delete it", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const callback = await startCallbackServer();
  try {
    const clientName = uniqueName("Agent");
    const client = await registerDynamicClient(request, { client_name: clientName, redirect_uris: [callback.url] });
    const user = await createUser(request);
    const admin = await createUser(request, { admin: true });
    await signIn(page, user.username, user.password);

    const { verifier, challenge } = pkcePair();
    await page.goto(authorizePath(authorizeParams(client.client_id, callback.url, challenge, "first")));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    const displayedName = `[Unverified Dynamic Application] ${clientName}`;
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${displayedName} is requesting access to your account`);
    const notice = page.getByRole("status").filter({ hasText: "Unverified application" });
    await expect(notice).toContainText("This application registered itself and has not been verified by an administrator of this service.");
    await expect(notice).toContainText(`you expect to be sent to ${new URL(callback.url).host}`);
    await expect(page.getByText("Use the MCP server on your behalf")).toBeVisible();
    await expect(page.getByText(`You will be redirected to ${new URL(callback.url).host} after authorizing.`)).toBeVisible();
    await page.screenshot({ path: test.info().outputPath("unverified-consent.png"), fullPage: true });
    await page.getByRole("button", { name: `Authorize ${displayedName}` }).click();
    const approved = await landOnCallback(page, callback.origin);
    expect(approved).toMatchObject({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state: "first" });
    const accessToken = await withFreshApi(playwright, baseURL, async (api) => {
      const exchanged = await api.post("/oauth/token", {
        form: { grant_type: "authorization_code", code: approved.code!, redirect_uri: callback.url, client_id: client.client_id, code_verifier: verifier },
      });
      expect(exchanged.status(), await exchanged.text()).toBe(200);
      return ((await exchanged.json()) as { access_token: string; scope: string }).access_token;
    });

    // The administrator finds it among the unverified applications, named after who authorized it, and trusts it.
    await switchTo(page, admin);
    await page.goto("/admin/applications?filter=unverified");
    await page.getByRole("searchbox", { name: "Search by name or client ID" }).fill(clientName);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page).toHaveURL(/filter=unverified&search=/);
    const stampedName = `${displayedName} — authorized by @${user.username}`;
    const row = page.getByRole("row").filter({ hasText: stampedName });
    await expect(row.getByText("Unverified", { exact: true })).toBeVisible();
    await expect(row).toContainText("Dynamic registration");
    await expect(row).toContainText(client.client_id);
    await row.getByRole("button", { name: `Trust ${stampedName}` }).click();
    await expect(row).toHaveCount(0);
    await page.goto(`/admin/applications?search=${encodeURIComponent(client.client_id)}`);
    const trustedRow = page.getByRole("row").filter({ hasText: stampedName });
    await expect(trustedRow).toContainText("Trusted");
    await expect(trustedRow.getByText("Unverified", { exact: true })).toHaveCount(0);

    // Trusted: the person is sent straight back, without a consent screen.
    await switchTo(page, user);
    await page.goto(authorizePath(authorizeParams(client.client_id, callback.url, pkcePair().challenge, "second")));
    expect(await landOnCallback(page, callback.origin)).toMatchObject({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state: "second" });

    // Deleted: its tokens stop working at once and its client_id is unknown.
    await switchTo(page, admin);
    await page.goto(`/admin/applications?search=${encodeURIComponent(clientName)}`);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("row").filter({ hasText: stampedName }).getByRole("button", { name: `Delete ${stampedName}` }).click();
    await expect(page.getByRole("row").filter({ hasText: stampedName })).toHaveCount(0);
    await withFreshApi(playwright, baseURL, async (api) => {
      const info = await api.get("/oauth/token/info", { headers: asBearer(accessToken) });
      expect(info.status()).toBe(401);
      const authorize = await api.get(authorizePath(authorizeParams(client.client_id, callback.url, challenge, "third")), { maxRedirects: 0 });
      expect(authorize.status()).toBe(400);
      expect(await authorize.text()).toContain("invalid_client");
    });
  } finally {
    await callback.close();
  }
});

test("a client identified by its metadata document URL is marked unverified with the document's host, and completes PKCE", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const callback = await startCallbackServer();
  // The client's own web server, publishing its metadata document (the test servers allow fetching from loopback).
  const documentServer = createServer((incoming, response) => {
    const self = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}${incoming.url}`;
    response.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "max-age=300" });
    response.end(JSON.stringify({ client_id: self, client_name: "Document Agent", redirect_uris: [callback.url], token_endpoint_auth_method: "none" }));
  });
  await new Promise<void>((resolve) => documentServer.listen(0, "127.0.0.1", resolve));
  try {
    const documentHost = `127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
    const clientId = `http://${documentHost}/oauth/${uniqueName("client")}.json`;
    const user = await createUser(request);
    await signIn(page, user.username, user.password);
    const { verifier, challenge } = pkcePair();
    await page.goto(authorizePath(authorizeParams(clientId, callback.url, challenge, "doc")));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("[Unverified Dynamic Application] Document Agent is requesting access to your account");
    const notice = page.getByRole("status").filter({ hasText: "Unverified application" });
    await expect(notice).toContainText(`This application is described by a document published at ${documentHost} and has not been verified`);
    await expect(notice).toContainText(`you expect to be sent to ${new URL(callback.url).host}`);
    await page.getByRole("button", { name: "Authorize [Unverified Dynamic Application] Document Agent" }).click();
    const approved = await landOnCallback(page, callback.origin);
    await withFreshApi(playwright, baseURL, async (api) => {
      const exchanged = await api.post("/oauth/token", {
        form: { grant_type: "authorization_code", code: approved.code!, redirect_uri: callback.url, client_id: clientId, code_verifier: verifier },
      });
      expect(exchanged.status(), await exchanged.text()).toBe(200);
      expect(await exchanged.json()).toMatchObject({ token_type: "Bearer", scope: "mcp" });
    });
  } finally {
    documentServer.closeAllConnections();
    await new Promise((resolve) => documentServer.close(resolve));
    await callback.close();
  }
});
