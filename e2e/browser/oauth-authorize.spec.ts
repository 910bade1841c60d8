import { expect, test } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { createUser, uniqueName } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";
import {
  authorizePath,
  createApplicationAsRoot,
  decodeJwtPayload,
  landOnCallback,
  pkcePair,
  registerApplication,
  startCallbackServer,
} from "../support/oauth-browser";

const nonce = () => randomBytes(8).toString("hex");

test("authorization code with PKCE: consent, code exchange with an ID token, consent asked again for a public client, denial", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const callback = await startCallbackServer();
  try {
    const user = await createUser(request);
    await signIn(page, user.username, user.password);
    const app = await registerApplication(page, {
      redirectUri: callback.url,
      confidential: false,
      scopes: ["openid", "profile", "read_user"],
    });

    const { verifier, challenge } = pkcePair();
    const state = nonce();
    const requestNonce = nonce();
    const params = {
      client_id: app.uid,
      redirect_uri: callback.url,
      response_type: "code",
      scope: "openid read_user",
      state,
      nonce: requestNonce,
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    await page.goto(authorizePath(params));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${app.name} is requesting access to your account`);
    await expect(page.getByText(`Signed in as User ${user.username} @${user.username}`)).toBeVisible();
    await expect(page.getByText("Authenticate using OpenID Connect")).toBeVisible();
    await expect(page.getByText("Read your personal information")).toBeVisible();
    await expect(page.getByText("Read your profile through OpenID Connect")).toHaveCount(0);
    await expect(page.getByText(`registered by User ${user.username} (@${user.username})`)).toBeVisible();
    await expect(page.getByText(`Make sure you trust ${app.name} before authorizing.`)).toBeVisible();
    await expect(page.getByText(`You will be redirected to ${new URL(callback.url).host} after authorizing.`)).toBeVisible();
    await expect(page.getByText(/deprecated implicit grant/)).toHaveCount(0);
    await expect(page.getByText(/You are an administrator/)).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath("consent.png"), fullPage: true });

    await page.getByRole("button", { name: `Authorize ${app.name}` }).click();
    const approved = await landOnCallback(page, callback.origin);
    expect(approved).toEqual({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state });

    await withFreshApi(playwright, baseURL, async (api) => {
      const exchanged = await api.post("/oauth/token", {
        form: {
          grant_type: "authorization_code",
          code: approved.code!,
          redirect_uri: callback.url,
          client_id: app.uid,
          code_verifier: verifier,
        },
      });
      expect(exchanged.status(), await exchanged.text()).toBe(200);
      const tokens = (await exchanged.json()) as Record<string, unknown>;
      expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "openid read_user" });
      expect(decodeJwtPayload(tokens.id_token as string)).toMatchObject({
        iss: baseURL,
        aud: app.uid,
        sub: String(user.id),
        nonce: requestNonce,
        preferred_username: user.username,
      });
      // The code is single use.
      const again = await api.post("/oauth/token", {
        form: { grant_type: "authorization_code", code: approved.code!, redirect_uri: callback.url, client_id: app.uid, code_verifier: verifier },
      });
      expect(again.status()).toBe(400);
      expect((await again.json()).error).toBe("invalid_grant");
    });

    // Same application, same scopes: a public client is asked about again, since anyone can send its client_id.
    const second = pkcePair();
    await page.goto(authorizePath({ ...params, state: "second", code_challenge: second.challenge }));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await page.getByRole("button", { name: `Authorize ${app.name}` }).click();
    expect(await landOnCallback(page, callback.origin)).toEqual({ code: expect.stringMatching(/^[0-9a-f]{64}$/), state: "second" });

    // A wider request asks again; Cancel sends the client access_denied with its state.
    await page.goto(authorizePath({ ...params, scope: "openid read_user profile", state: "third" }));
    await expect(page.getByText("Read your profile through OpenID Connect")).toBeVisible();
    await page.getByRole("button", { name: "Cancel" }).click();
    expect(await landOnCallback(page, callback.origin)).toEqual({
      error: "access_denied",
      error_description: expect.any(String),
      state: "third",
    });
  } finally {
    await callback.close();
  }
});

test("signing in first: /oauth/authorize sends an anonymous visitor to sign in, then to the consent page", async ({ page, request }) => {
  const callback = await startCallbackServer();
  try {
    const app = await createApplicationAsRoot(request, { redirectUri: callback.url, scopes: "read_user" });
    const user = await createUser(request);
    const state = nonce();
    await page.goto(authorizePath({ client_id: app.uid, redirect_uri: callback.url, response_type: "code", scope: "read_user", state }));
    await expect(page).toHaveURL(/\/users\/sign_in\?callbackUrl=/);
    await expect(page.getByTestId("sign-in-purpose")).toHaveText(`Sign in to continue to ${app.name}, which is asking to access your account.`);
    await page.getByLabel("Username or email").fill(user.username);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    // An instance-wide application has no owner to name.
    await expect(page.getByText(`Make sure you trust ${app.name} before authorizing.`)).toBeVisible();
    await expect(page.getByText(/registered by/)).toHaveCount(0);
    await page.getByRole("button", { name: `Authorize ${app.name}` }).click();
    expect(await landOnCallback(page, callback.origin)).toMatchObject({ code: expect.any(String), state });
  } finally {
    await callback.close();
  }
});

test("the consent page cannot be framed and is not cached", async ({ page, request }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://client.example/callback", scopes: "read_user" });
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  const response = await page.goto(
    authorizePath({ client_id: app.uid, redirect_uri: "https://client.example/callback", response_type: "code", scope: "read_user" }),
  );
  await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
  const headers = response!.headers();
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["cache-control"]).toContain("no-store");

  // A page of another origin that frames it gets nothing: the browser refuses to render it.
  const callback = await startCallbackServer();
  try {
    await page.goto(callback.url);
    await page.setContent(`<iframe title="framed" src="${response!.url()}"></iframe>`);
    await page.waitForTimeout(500);
    await expect(page.frameLocator('iframe[title="framed"]').getByRole("button", { name: `Authorize ${app.name}` })).toHaveCount(0);
  } finally {
    await callback.close();
  }
});

test("a forged authenticity token is refused with 403 and issues no code", async ({ page, request }) => {
  const callback = await startCallbackServer();
  try {
    const app = await createApplicationAsRoot(request, { redirectUri: callback.url, scopes: "read_user" });
    const user = await createUser(request);
    await signIn(page, user.username, user.password);
    const params = { client_id: app.uid, redirect_uri: callback.url, response_type: "code", scope: "read_user", state: nonce() };
    await page.goto(authorizePath(params));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);

    const fields = await page.locator('form[action="/oauth/authorize/decision"] input[type="hidden"]').evaluateAll((inputs) =>
      Object.fromEntries(inputs.map((input) => [(input as HTMLInputElement).name, (input as HTMLInputElement).value])),
    );
    expect(fields).toEqual({ ...params, authenticity_token: expect.stringMatching(/\./) });

    // The browser's own cookies, as a cross-site form post would carry them, but a token the site never issued.
    for (const forged of [`${fields.authenticity_token!.split(".")[0]}.forged`, "", undefined]) {
      const form: Record<string, string> = { ...fields, decision: "approve" };
      if (forged === undefined) delete form.authenticity_token;
      else form.authenticity_token = forged;
      const response = await page.request.post("/oauth/authorize/decision", { form, maxRedirects: 0 });
      expect(response.status()).toBe(403);
      expect(response.headers().location).toBeUndefined();
      expect(await response.text()).toContain("did not come from this site");
    }

    // Nothing was approved: the next request still asks.
    await page.goto(authorizePath(params));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await expect(page.getByRole("button", { name: `Authorize ${app.name}` })).toBeVisible();
  } finally {
    await callback.close();
  }
});

test("errors the client cannot be trusted with are shown, not redirected", async ({ page, request }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://client.example/callback", scopes: "read_user" });
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto(`/oauth/authorize/consent?client_id=${app.uid}&redirect_uri=${encodeURIComponent("https://evil.example/")}&response_type=code`);
  await expect(page.getByRole("heading", { name: "An error has occurred" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("invalid_redirect_uri");
  await expect(page.getByRole("button", { name: /Authorize/ })).toHaveCount(0);
});

test("an authorization request from an unknown client is explained in the site's own page, with status 400", async ({ page }) => {
  const response = await page.goto(`/oauth/authorize?client_id=unknown&redirect_uri=${encodeURIComponent("https://client.example/callback")}&response_type=code`);
  expect(response?.status()).toBe(400);
  await expect(page).toHaveURL(/\/oauth\/authorize\?client_id=unknown&/);
  await expect(page.getByRole("heading", { name: "An error has occurred" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("invalid_client");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" })).toBeVisible();
  // Styled by the site's stylesheet (a browser's own <pre> has no background).
  await expect(page.locator("pre.oauth-error")).toHaveCSS("background-color", "rgb(244, 244, 246)");
});

test("implicit grant only where an admin enabled it, marked deprecated, without a refresh token", async ({ page, request }) => {
  const callback = await startCallbackServer();
  try {
    const enabled = await createApplicationAsRoot(request, { redirectUri: callback.url, scopes: "read_user", implicitGrantEnabled: true });
    const plain = await createApplicationAsRoot(request, { redirectUri: callback.url, scopes: "read_user" });
    const user = await createUser(request);
    await signIn(page, user.username, user.password);

    const state = nonce();
    await page.goto(authorizePath({ client_id: enabled.uid, redirect_uri: callback.url, response_type: "token", scope: "read_user", state }));
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await expect(page.getByText(/This application uses the deprecated implicit grant/)).toBeVisible();
    await page.getByRole("button", { name: `Authorize ${enabled.name}` }).click();
    await page.waitForURL((url) => url.origin === callback.origin);
    const landed = new URL(page.url());
    expect(landed.search).toBe("");
    const fragment = Object.fromEntries(new URLSearchParams(landed.hash.slice(1)));
    expect(fragment).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      token_type: "Bearer",
      expires_in: "7200",
      scope: "read_user",
      state,
    });
    expect(fragment).not.toHaveProperty("refresh_token");
    const info = await page.request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${fragment.access_token}` } });
    expect(info.status()).toBe(200);
    expect(await info.json()).toMatchObject({ resource_owner_id: user.id, application: { uid: enabled.uid } });

    await page.goto(authorizePath({ client_id: plain.uid, redirect_uri: callback.url, response_type: "token", scope: "read_user", state }));
    await page.waitForURL((url) => url.origin === callback.origin);
    const refused = new URL(page.url());
    expect(Object.fromEntries([...refused.searchParams, ...new URLSearchParams(refused.hash.slice(1))])).toMatchObject({
      error: "unsupported_response_type",
      state,
    });
  } finally {
    await callback.close();
  }
});

test("an administrator is warned before authorizing", async ({ page, request }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://client.example/callback", scopes: "api" });
  const admin = await createUser(request, { admin: true });
  await signIn(page, admin.username, admin.password);
  await page.goto(authorizePath({ client_id: app.uid, redirect_uri: "https://client.example/callback", response_type: "code", scope: "api", state: uniqueName("s") }));
  await expect(page.getByText(`You are an administrator, which means authorizing access to ${app.name} will allow it`)).toBeVisible();
  await expect(page.getByText("Access the API on your behalf")).toBeVisible();
});
