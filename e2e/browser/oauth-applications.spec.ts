import { expect, test, type APIRequestContext } from "@playwright/test";
import { createUser, uniqueName } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";
import { authorizePath, createApplicationAsRoot, landOnCallback, startCallbackServer } from "../support/oauth-browser";

/** The password grant with client credentials: a quick way to ask whether a client secret still authenticates. */
async function passwordGrant(api: APIRequestContext, clientId: string, clientSecret: string, user: { username: string; password: string }) {
  const response = await api.post("/oauth/token", {
    form: { grant_type: "password", username: user.username, password: user.password, scope: "read_user", client_id: clientId, client_secret: clientSecret },
  });
  return { status: response.status(), body: (await response.json()) as Record<string, unknown> };
}

test("register an application, see its secret once, renew it, delete it", async ({ page, request, playwright, baseURL }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile");
  await page.getByRole("link", { name: "Applications" }).click();
  await expect(page).toHaveURL(/\/profile\/applications$/);
  await expect(page.getByRole("checkbox", { name: "Confidential" })).toBeChecked();
  await expect(page.getByText("Use one line per URI")).toBeVisible();

  await page.getByRole("button", { name: "Save application" }).click();
  await expect(page.getByText("Enter a name for the application.")).toBeVisible();
  await expect(page.getByText("Enter at least one redirect URI.")).toBeVisible();
  await expect(page.getByText("Select at least one scope.")).toBeVisible();

  const name = uniqueName("Backend");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Redirect URI").fill("javascript:alert(1)");
  await page.getByRole("checkbox", { name: /^read_user / }).check();
  await page.getByRole("button", { name: "Save application" }).click();
  await expect(page.getByText("Redirect uri is forbidden by the server.")).toBeVisible();

  await page.getByLabel("Redirect URI").fill("https://backend.example/callback\nhttp://127.0.0.1:8080/callback");
  await page.getByRole("checkbox", { name: /^openid / }).check();
  await page.getByRole("button", { name: "Save application" }).click();

  const created = page.getByRole("region", { name: `Application ${name} was created` });
  await expect(created.getByLabel("Secret")).toHaveValue(/^gloas-[0-9a-f]{64}$/);
  await expect(created).toContainText("This is the only time the secret is accessible. Copy the secret and store it securely.");
  const uid = await created.getByLabel("Application ID").inputValue();
  const firstSecret = await created.getByLabel("Secret").inputValue();
  expect(uid).toMatch(/^[0-9a-f]{64}$/);
  await expect(created.getByRole("button", { name: "Copy" }).first()).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("applications-created.png"), fullPage: true });

  const listed = page.getByRole("article", { name });
  await expect(listed).toContainText(uid);
  await expect(listed).toContainText("https://backend.example/callback");
  await expect(listed).toContainText("http://127.0.0.1:8080/callback");
  await expect(listed).toContainText("read_user, openid");
  await expect(listed.getByText("Yes", { exact: true })).toBeVisible();

  await withFreshApi(playwright, baseURL, async (api) => {
    expect(await passwordGrant(api, uid, firstSecret, user)).toMatchObject({ status: 200 });
  });

  // Shown once: after a reload only the listing remains.
  await page.reload();
  await expect(page.getByLabel("Secret")).toHaveCount(0);
  await expect(listed).toContainText("The secret is only available when you create the application or renew the secret.");

  page.once("dialog", (dialog) => {
    expect(dialog.message()).toBe(
      "Are you sure you want to renew this secret? Any applications using the old secret will no longer be able to authenticate.",
    );
    void dialog.accept();
  });
  await listed.getByRole("button", { name: "Renew secret" }).click();
  await expect(listed.getByText("Application secret was successfully renewed.")).toBeVisible();
  const renewedSecret = await listed.getByLabel("Secret").inputValue();
  expect(renewedSecret).toMatch(/^gloas-[0-9a-f]{64}$/);
  expect(renewedSecret).not.toBe(firstSecret);
  await page.screenshot({ path: test.info().outputPath("applications-renewed.png"), fullPage: true });

  await withFreshApi(playwright, baseURL, async (api) => {
    expect(await passwordGrant(api, uid, firstSecret, user)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect(await passwordGrant(api, uid, renewedSecret, user)).toMatchObject({ status: 200 });
  });

  page.once("dialog", (dialog) => void dialog.accept());
  await listed.getByRole("button", { name: "Delete" }).click();
  await expect(listed).toHaveCount(0);
  await expect(page.getByText("You have not registered any applications yet.")).toBeVisible();
  await withFreshApi(playwright, baseURL, async (api) => {
    expect(await passwordGrant(api, uid, renewedSecret, user)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });
});

test("revoking an authorized application stops its access token", async ({ page, request, playwright, baseURL }) => {
  const callback = await startCallbackServer();
  try {
    const app = await createApplicationAsRoot(request, { redirectUri: callback.url, scopes: "read_user" });
    const user = await createUser(request);
    await signIn(page, user.username, user.password);
    const params = { client_id: app.uid, redirect_uri: callback.url, response_type: "code", scope: "read_user", state: "s" };
    await page.goto(authorizePath(params));
    await page.getByRole("button", { name: `Authorize ${app.name}` }).click();
    const { code } = await landOnCallback(page, callback.origin);

    const accessToken = await withFreshApi(playwright, baseURL, async (api) => {
      const exchanged = await api.post("/oauth/token", {
        form: { grant_type: "authorization_code", code: code!, redirect_uri: callback.url, client_id: app.uid, client_secret: app.secret },
      });
      expect(exchanged.status(), await exchanged.text()).toBe(200);
      const token = ((await exchanged.json()) as { access_token: string }).access_token;
      expect((await api.get("/oauth/token/info", { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(200);
      return token;
    });

    await page.goto("/profile/applications");
    const section = page.getByRole("region", { name: /Authorized applications/ });
    const row = section.getByRole("row").filter({ hasText: app.name });
    await expect(row).toContainText("read_user");
    await page.screenshot({ path: test.info().outputPath("authorized-applications.png"), fullPage: true });
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: `Revoke ${app.name}` }).click();
    await expect(section.getByRole("status")).toHaveText("The application was revoked access.");
    await expect(row).toHaveCount(0);

    await withFreshApi(playwright, baseURL, async (api) => {
      const info = await api.get("/oauth/token/info", { headers: { Authorization: `Bearer ${accessToken}` } });
      expect(info.status()).toBe(401);
      expect(await info.json()).toEqual({ error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" });
    });

    // The consent went with it: the application has to ask again.
    await page.goto(authorizePath(params));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
  } finally {
    await callback.close();
  }
});
