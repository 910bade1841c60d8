import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import * as client from "openid-client";
import { createUser } from "../support/api";
import { signIn as signInPage } from "../support/browser";
import { callbackUrl, createApplication, discover, pkceAuthorizationRequest, signIn } from "../support/oauth";

// The instance setting that puts RFC 9207's `iss` in authorization responses and its flag in discovery. It changes
// what every authorization answers, so this file runs on a server of its own (playwright.config.ts, `oauth-iss`).

test.describe.configure({ mode: "serial" });

const settingsPath = "/admin/application_settings/general";
const settingLabel = "Send the issuer (iss) with authorization responses";

async function saveIssSetting(page: Page, on: boolean): Promise<void> {
  await page.goto(settingsPath);
  const setting = page.getByRole("checkbox", { name: settingLabel });
  await expect(setting).toBeChecked({ checked: !on });
  await setting.setChecked(on);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Application settings saved successfully.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: settingLabel })).toBeChecked({ checked: on });
}

async function discoveryDocument(request: APIRequestContext): Promise<Record<string, unknown>> {
  const response = await request.get("/.well-known/openid-configuration");
  expect(response.status()).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Where /oauth/authorize sends the signed-in person on `request`, as a URL. */
async function authorizeRedirect(request: APIRequestContext, url: string): Promise<URL> {
  const response = await request.get(url, { maxRedirects: 0 });
  expect(response.status(), await response.text()).toBe(302);
  return new URL(response.headers()["location"]!);
}

test("an admin turns iss on: codes and errors carry it, discovery says so, openid-client checks it; off again, neither", async ({
  page,
  request,
  baseURL,
}) => {
  const admin = await createUser(request, { admin: true });
  const user = await createUser(request);
  const app = await createApplication(request, { trusted: true });
  await signIn(request, user.username, user.password);
  const config = await discover(baseURL!, app.application_id, app.secret);
  const { url, verifier, state } = await pkceAuthorizationRequest(config, { scope: "api" });
  const authorizationUrl = url.href;
  const refusedUrl = `/oauth/authorize?client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&scope=sudo&state=r`;

  // Off, as GitLab: nothing advertised, nothing sent.
  expect(await discoveryDocument(request)).not.toHaveProperty("authorization_response_iss_parameter_supported");
  expect((await authorizeRedirect(request, authorizationUrl)).searchParams.has("iss")).toBe(false);

  await signInPage(page, admin.username, admin.password);
  await saveIssSetting(page, true);
  try {
    expect(await discoveryDocument(request)).toMatchObject({ issuer: baseURL, authorization_response_iss_parameter_supported: true });
    const approved = await authorizeRedirect(request, authorizationUrl);
    expect([...approved.searchParams.keys()]).toEqual(["code", "state", "iss"]);
    expect(approved.searchParams.get("iss")).toBe(baseURL);
    // openid-client, told by discovery that the server sends iss, requires it and compares it with the issuer.
    const advertised = await discover(baseURL!, app.application_id, app.secret);
    const tokens = await client.authorizationCodeGrant(advertised, approved, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.scope).toBe("api");
    const stripped = new URL(approved);
    stripped.searchParams.delete("iss");
    await expect(client.authorizationCodeGrant(advertised, stripped, { pkceCodeVerifier: verifier, expectedState: state })).rejects.toMatchObject({
      message: "invalid response encountered",
      cause: { message: 'response parameter "iss" (issuer) missing' },
    });

    const refused = await authorizeRedirect(request, refusedUrl);
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: "invalid_scope",
      error_description: "The requested scope is invalid, unknown, or malformed.",
      state: "r",
      iss: baseURL,
    });
  } finally {
    await saveIssSetting(page, false);
  }

  expect(await discoveryDocument(request)).not.toHaveProperty("authorization_response_iss_parameter_supported");
  const approved = await authorizeRedirect(request, authorizationUrl);
  expect([...approved.searchParams.keys()]).toEqual(["code", "state"]);
  expect(Object.fromEntries((await authorizeRedirect(request, refusedUrl)).searchParams)).toEqual({
    error: "invalid_scope",
    error_description: "The requested scope is invalid, unknown, or malformed.",
    state: "r",
  });
});

test("the settings page is the admins' alone", async ({ page, request }) => {
  const user = await createUser(request);
  await signInPage(page, user.username, user.password);
  const response = await page.goto(settingsPath);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("checkbox", { name: settingLabel })).toHaveCount(0);
});
