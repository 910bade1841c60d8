import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { asToken, rootToken, uniqueName } from "./api";

/** A client's redirect endpoint on a loopback port: answers every request so the browser has a page to land on. */
export async function startCallbackServer(): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!DOCTYPE html><title>Client callback</title><h1>Client callback</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/callback`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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
