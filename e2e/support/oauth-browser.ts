import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { asToken, rootToken, uniqueName } from "./api";
import { submitSignIn } from "./browser";
import { listenOnLoopback, type LoopbackServer } from "./relying-parties";

/** A client's redirect endpoint on a loopback port: answers every request so the browser has a page to land on. */
export async function startCallbackServer(): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const server = await listenOnLoopback((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!DOCTYPE html><title>Client callback</title><h1>Client callback</h1>");
  });
  return { url: `${server.origin}/callback`, origin: server.origin, close: server.close };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizePath(params: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/** The parameters the client receives: the query, or for the implicit grant the fragment. */
export function callbackParams(url: string): Record<string, string> {
  const parsed = new URL(url);
  return Object.fromEntries([...parsed.searchParams, ...new URLSearchParams(parsed.hash.replace(/^#/, ""))]);
}

/** Waits for the browser to arrive at the client's callback and returns the parameters it brought. */
export async function landOnCallback(page: Page, origin: string): Promise<Record<string, string>> {
  await page.waitForURL((url) => url.origin === origin);
  return callbackParams(page.url());
}

export interface RegisteredApplication {
  name: string;
  uid: string;
  secret: string;
}

/** Registers an application through `/profile/applications` and reads the ID and secret it shows once. */
export async function registerApplication(
  page: Page,
  options: { redirectUri: string; scopes: string[]; confidential: boolean; name?: string },
): Promise<RegisteredApplication> {
  const name = options.name ?? uniqueName("App");
  await page.goto("/profile/applications");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Redirect URI").fill(options.redirectUri);
  await page.getByRole("checkbox", { name: "Confidential" }).setChecked(options.confidential);
  for (const scope of options.scopes) await page.getByRole("checkbox", { name: new RegExp(`^${scope} `) }).check();
  await page.getByRole("button", { name: "Save application" }).click();
  const created = page.getByRole("region", { name: `Application ${name} was created` });
  await expect(created.getByLabel("Secret")).toHaveValue(/^gloas-[0-9a-f]{64}$/);
  return { name, uid: await created.getByLabel("Application ID").inputValue(), secret: await created.getByLabel("Secret").inputValue() };
}

/** An instance-wide application through the admin API, optionally with the admin-only switches. */
export async function createApplicationAsRoot(
  request: APIRequestContext,
  options: { redirectUri: string; scopes: string; confidential?: boolean; implicitGrantEnabled?: boolean },
): Promise<{ id: number; uid: string; name: string; secret: string }> {
  const name = uniqueName("Instance app");
  const created = await request.post("/api/v4/applications", {
    headers: asToken(rootToken),
    data: { name, redirect_uri: options.redirectUri, scopes: options.scopes, confidential: options.confidential ?? true },
  });
  expect(created.status(), await created.text()).toBe(201);
  const body = (await created.json()) as { id: number; application_id: string; secret: string };
  if (options.implicitGrantEnabled) {
    const updated = await request.put(`/api/v4/applications/${body.id}`, {
      headers: asToken(rootToken),
      data: { implicit_grant_enabled: true },
    });
    expect(updated.status(), await updated.text()).toBe(200);
    expect(await updated.json()).toMatchObject({ implicit_grant_enabled: true });
  }
  return { id: body.id, uid: body.application_id, name, secret: body.secret };
}

export function decodeJwtPayload(jwt: string): Record<string, unknown> {
  const payload = jwt.split(".")[1];
  if (!payload) throw new Error("not a JWT");
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
}

/**
 * A relying party sent the browser to /oauth/authorize with nobody signed in here: signs in on our sign-in page, which
 * leads to the consent page, and authorizes the application there.
 */
export async function signInAndAuthorize(page: Page, baseURL: string, user: { username: string; password: string }, applicationName: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${baseURL}/users/sign_in\\?`));
  // Arrived by redirects, not by page.goto: wait for the form's script as goto would, or a click before it submits
  // the plain HTML form and reloads an empty one.
  await page.waitForLoadState("load");
  await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(new RegExp(`^${baseURL}/oauth/authorize/consent\\?`));
  await page.getByRole("button", { name: `Authorize ${applicationName}` }).click();
}

/** The signed-in person's profile lists the application among those they authorized, with `scopes`. */
export async function expectAuthorizedOnProfile(page: Page, applicationName: string, scopes: string): Promise<void> {
  await page.goto("/profile/applications");
  const authorized = page.getByRole("region", { name: /^Authorized applications/ });
  await expect(authorized.getByRole("row").filter({ hasText: applicationName }).getByRole("cell").nth(1)).toHaveText(scopes);
}

/**
 * Back at a relying party after the consent page: it redeemed the code, read `/api/v4/user` and started a session of
 * its own, which its session endpoint (`sessionPath`, where the sign-in was told to return) shows with the person's
 * name, address and avatar. Its callback is under `callbackPrefix`.
 */
export async function expectRelyingPartySession(
  page: Page,
  relyingParty: LoopbackServer,
  paths: { callbackPrefix: string; sessionPath: string },
  user: { id: number; username: string; email: string },
  baseURL: string,
): Promise<void> {
  await page.waitForURL((url) => url.origin === relyingParty.origin && !url.pathname.startsWith(paths.callbackPrefix));
  expect(page.url()).toBe(`${relyingParty.origin}${paths.sessionPath}`);
  expect(relyingParty.failures).toEqual([]);
  const session = await page.request.get(`${relyingParty.origin}${paths.sessionPath}`);
  expect(session.status()).toBe(200);
  expect(await session.json()).toEqual({
    user: { name: `User ${user.username}`, email: user.email, image: `${baseURL}/-/avatars/${user.id}` },
    expires: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
  });
}

/** How the consent page marks an application that registered itself. */
export type UnverifiedMarking = { kind: "dynamic" } | { kind: "metadata_document"; documentHost: string };

/**
 * The person at an authorization URL a client opened for them, in the browser: signs in on our sign-in form when no
 * one is signed in yet, checks that the consent page names `applicationName`, marks it unverified as `unverified`
 * says and asks for `mcp` alone, authorizes it, and returns the parameters the browser brought to the client's
 * redirect URI (read from the URL itself).
 */
export async function consentToMcpClient(
  page: Page,
  authorizationUrl: string,
  user: { username: string; password: string },
  expected: { applicationName: string; unverified: UnverifiedMarking },
): Promise<Record<string, string>> {
  const redirectUri = new URL(new URL(authorizationUrl).searchParams.get("redirect_uri") ?? "");
  await page.goto(authorizationUrl);
  if (new URL(page.url()).pathname === "/users/sign_in") await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${expected.applicationName} is requesting access to your account`);
  const notice = page.getByRole("status").filter({ hasText: "Unverified application" });
  await expect(notice).toContainText(
    expected.unverified.kind === "dynamic"
      ? "This application registered itself and has not been verified by an administrator of this service."
      : `This application is described by a document published at ${expected.unverified.documentHost} and has not been verified by an administrator of this service.`,
  );
  await expect(notice).toContainText(`you expect to be sent to ${redirectUri.host}`);
  const scopes = page.getByRole("region", { name: "This application will be able to:" }).getByRole("listitem");
  await expect(scopes).toHaveCount(1);
  await expect(scopes.locator("code")).toHaveText("mcp");
  await expect(scopes.locator("strong")).toHaveText("Use the MCP server on your behalf");
  await page.getByRole("button", { name: `Authorize ${expected.applicationName}` }).click();
  await page.waitForURL((url) => url.origin === redirectUri.origin && url.pathname === redirectUri.pathname);
  return callbackParams(page.url());
}
