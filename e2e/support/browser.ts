import { expect, type APIRequestContext, type Page } from "@playwright/test";

/** Fills the sign-in form and submits it; resolves once the server has answered the attempt. */
export async function submitSignIn(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel("Username or email").fill(login);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await Promise.all([
    page.waitForResponse((response) => response.url().includes("/api/auth/callback/credentials")),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
}

/** Signs in through the form and waits for the project list. */
export async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.goto("/users/sign_in");
  await submitSignIn(page, login, password);
  await expect(page).toHaveURL(/\/projects$/);
}

/** Registers through the sign-up form, which then signs in; resolves on the project list. */
export async function signUp(page: Page, account: { name?: string; username: string; email: string; password: string }): Promise<void> {
  await page.goto("/users/sign_up");
  await page.getByLabel("Name", { exact: true }).fill(account.name ?? "Sign Up Person");
  await page.getByLabel("Username").fill(account.username);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password", { exact: true }).fill(account.password);
  await page.getByLabel("Password confirmation").fill(account.password);
  await page.getByRole("button", { name: "Register" }).click();
  await expect(page).toHaveURL(/\/projects$/);
}

/** The header's Sign out (the profile also has "Sign out everywhere"). */
function signOutButton(page: Page) {
  return page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out", exact: true });
}

export async function signOut(page: Page): Promise<void> {
  await signOutButton(page).click();
  await expect(page).toHaveURL(/\/users\/sign_in/);
  await expect(signOutButton(page)).toHaveCount(0);
}

/** The navigation shows who is signed in. */
export async function expectSignedInAs(page: Page, username: string): Promise<void> {
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: new RegExp(`@${username}$`) })).toBeVisible();
}

/**
 * Runs API calls on fresh connections. The `request` fixture keeps connections alive; after a long stretch of
 * browser steps the server may be closing an idle one just as the next call reuses it (ECONNRESET).
 */
export async function withFreshApi<T>(
  playwright: { request: { newContext(options: { baseURL?: string }): Promise<APIRequestContext> } },
  baseURL: string | undefined,
  run: (api: APIRequestContext) => Promise<T>,
): Promise<T> {
  const api = await playwright.request.newContext({ baseURL });
  try {
    return await run(api);
  } finally {
    await api.dispose();
  }
}
