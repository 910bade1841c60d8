import { expect, test, type APIRequestContext, type Locator } from "@playwright/test";
import { asToken, createUser, rootToken } from "../support/api";
import { signIn, signOut, submitSignIn, withFreshApi } from "../support/browser";
import { createApplicationAsRoot } from "../support/oauth-browser";

const deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code";

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function startDevice(api: APIRequestContext, clientId: string): Promise<DeviceAuthorization> {
  const response = await api.post("/oauth/authorize_device", { form: { client_id: clientId, scope: "read_user" } });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as DeviceAuthorization;
}

async function poll(api: APIRequestContext, clientId: string, deviceCode: string) {
  const response = await api.post("/oauth/token", { form: { grant_type: deviceGrantType, device_code: deviceCode, client_id: clientId } });
  return { status: response.status(), body: (await response.json()) as Record<string, unknown> };
}

test("a device approved through its verification link gets tokens once", async ({ page, request, playwright, baseURL }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://device.example/unused", scopes: "read_user", confidential: false });
  const user = await createUser(request);
  const device = await startDevice(request, app.uid);
  expect(device).toEqual({
    device_code: expect.stringMatching(/^[0-9a-f]{64}$/),
    user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
    verification_uri: `${baseURL}/oauth/device`,
    verification_uri_complete: `${baseURL}/oauth/device?user_code=${device.user_code}`,
    expires_in: 300,
    interval: 5,
  });
  expect(await poll(request, app.uid, device.device_code)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });

  // The person follows the link from the device, signs in, and lands back on the confirmation.
  await page.goto(device.verification_uri_complete);
  await expect(page).toHaveURL(/\/users\/sign_in\?callbackUrl=/);
  await expect(page.getByTestId("sign-in-purpose")).toHaveText("Sign in to authorize a device. You will check its code and what it asks for next.");
  await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/oauth\/device\?user_code=/);
  await expect(page.getByText(`${app.name} is asking to access your account from a device showing the code ${device.user_code}`)).toBeVisible();
  await expect(page.getByText("Read your personal information")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("device-confirm.png"), fullPage: true });
  await page.getByRole("button", { name: "Authorize" }).click();
  await expect(page.getByRole("status")).toContainText("Device successfully authorized");

  await withFreshApi(playwright, baseURL, async (api) => {
    const granted = await poll(api, app.uid, device.device_code);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect(granted.body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "read_user", refresh_token: expect.any(String) });
    const info = await api.get("/oauth/token/info", { headers: { Authorization: `Bearer ${granted.body.access_token as string}` } });
    expect(info.status()).toBe(200);
    expect(await info.json()).toMatchObject({ resource_owner_id: user.id, scope: ["read_user"], application: { uid: app.uid } });
    expect(await poll(api, app.uid, device.device_code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  // The code was used up: opening the link again says so.
  await page.goto(device.verification_uri_complete);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("The user code is invalid or expired");
});

test("a device denied by a code typed by hand gets access_denied", async ({ page, request, playwright, baseURL }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://device.example/unused", scopes: "read_user", confidential: false });
  const user = await createUser(request);
  const device = await startDevice(request, app.uid);
  await signIn(page, user.username, user.password);

  await page.goto("/oauth/device");
  // The code field is ready to type in, and looks like every other text field.
  const codeField = page.getByLabel("User code");
  await expect(codeField).toBeFocused();
  const looks = (field: Locator) => field.evaluate((element) => {
    const style = getComputedStyle(element);
    return { height: style.height, border: style.border, padding: style.padding, borderRadius: style.borderRadius };
  });
  await page.goto("/users/password/new");
  const otherField = await looks(page.getByRole("textbox").first());
  await page.goto("/oauth/device");
  expect(await looks(codeField)).toEqual(otherField);
  await page.getByLabel("User code").fill("BBBB-BBBB");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("The user code is invalid or expired");

  // Lower case and no dash are fine: people type what they read.
  await page.getByLabel("User code").fill(device.user_code.replace("-", "").toLowerCase());
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByText(`${app.name} is asking to access your account`)).toBeVisible();
  await page.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByRole("status")).toContainText("The device was denied access.");

  await withFreshApi(playwright, baseURL, async (api) => {
    expect(await poll(api, app.uid, device.device_code)).toMatchObject({ status: 400, body: { error: "access_denied" } });
  });
});

test("an account whose email address is not confirmed can neither see nor approve a device's request, as in the code flow", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const verify = "Verify the email address in your account profile before you sign in.";
  const app = await createApplicationAsRoot(request, { redirectUri: "https://device.example/unused", scopes: "read_user", confidential: false });
  const device = await startDevice(request, app.uid);

  // Signed in with an address not yet confirmed (EMAIL_CONFIRMATION=soft lets the account in): no code is looked at.
  const unconfirmed = await createUser(request, { confirmed: false });
  await page.goto(device.verification_uri_complete);
  await submitSignIn(page, unconfirmed.username, unconfirmed.password);
  await expect(page).toHaveURL(/\/oauth\/device\?user_code=/);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(verify);
  await expect(page.getByRole("button", { name: "Authorize" })).toHaveCount(0);
  await expect(page.getByLabel("User code")).toHaveCount(0);
  await signOut(page);

  // The decision itself refuses too: this person's address stops being confirmed while the page is open.
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto(device.verification_uri_complete);
  await expect(page.getByRole("button", { name: "Authorize" })).toBeVisible();
  const changed = await request.put(`/api/v4/users/${user.id}`, { headers: asToken(rootToken), data: { email: `new-${user.email}` } });
  expect(changed.status(), await changed.text()).toBe(200);
  await page.getByRole("button", { name: "Authorize" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(verify);

  await withFreshApi(playwright, baseURL, async (api) => {
    expect(await poll(api, app.uid, device.device_code)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
  });
});
