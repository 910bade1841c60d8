import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { createUser, type CreatedUser } from "../support/api";
import { signIn, signOut, submitSignIn, withFreshApi } from "../support/browser";

function codeFor(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
}

async function submitOtp(page: Page, code: string): Promise<void> {
  await page.getByLabel("Two-factor code").fill(code);
  await Promise.all([
    page.waitForResponse((response) => response.url().includes("/api/auth/callback/credentials")),
    page.getByRole("button", { name: "Verify code" }).click(),
  ]);
}

/** The recovery codes on the page, once they are shown. */
async function readRecoveryCodes(page: Page): Promise<string[]> {
  const items = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(items).toHaveCount(10);
  return items.allTextContents();
}

async function startSignIn(page: Page, user: CreatedUser): Promise<void> {
  await page.goto("/users/sign_in");
  await submitSignIn(page, user.username, user.password);
  await expect(page.getByLabel("Two-factor code")).toBeVisible();
}

test("enable two-factor authentication, then sign in with a code and with a recovery code", async ({ page, request, playwright, baseURL }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);

  await page.goto("/profile");
  await page.getByRole("link", { name: "Two-factor authentication" }).click();
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  const secret = await page.getByLabel("Secret key").inputValue();
  expect(secret).toMatch(/^[A-Z2-7]+=*$/);

  // A wrong password is refused before anything changes.
  await page.getByLabel("Verification code").fill(codeFor(secret, Date.now()));
  await page.getByLabel("Current password").fill("not my password");
  await page.getByRole("button", { name: "Register with two-factor app" }).click();
  await expect(page.getByText("Password is incorrect")).toBeVisible();

  await page.getByLabel("Verification code").fill(codeFor(secret, Date.now()));
  await page.getByLabel("Current password").fill(user.password);
  await page.getByRole("button", { name: "Register with two-factor app" }).click();
  const recoveryCodes = await readRecoveryCodes(page);
  await expect(page.getByText("They will not be shown again.")).toBeVisible();

  await page.getByRole("button", { name: "I have stored my recovery codes" }).click();
  await expect(page.getByText(/Two-factor authentication is enabled since/)).toBeVisible();
  await expect(page.getByRole("list", { name: "Recovery codes" })).toHaveCount(0);
  await page.goto("/profile");
  await expect(page.getByRole("definition").filter({ hasText: "Enabled" })).toBeVisible();

  await withFreshApi(playwright, baseURL, async (api) => {
    const apiUser = await api.get("/api/v4/user", { headers: { "PRIVATE-TOKEN": user.token } });
    expect((await apiUser.json()).two_factor_enabled).toBe(true);
  });

  await signOut(page);

  // The password alone is not enough any more, and a wrong code is refused.
  await startSignIn(page, user);
  await submitOtp(page, "000000");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid two-factor code.");
  await expect(page).toHaveURL(/\/users\/sign_in$/);

  // The code of the enrollment's time step was used; the next step's code is fresh.
  await submitOtp(page, codeFor(secret, Date.now() + 30_000));
  await expect(page).toHaveURL(/\/projects$/);
  await signOut(page);

  const [recoveryCode] = recoveryCodes;
  await startSignIn(page, user);
  await submitOtp(page, recoveryCode!);
  await expect(page).toHaveURL(/\/projects$/);
  await signOut(page);

  // A recovery code works once.
  await startSignIn(page, user);
  await submitOtp(page, recoveryCode!);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid two-factor code.");
});

test("regenerate recovery codes, copy and download them, and disable two-factor authentication", async ({ page, request, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile/two_factor_auth");
  const secret = await page.getByLabel("Secret key").inputValue();
  await page.getByLabel("Verification code").fill(codeFor(secret, Date.now()));
  await page.getByLabel("Current password").fill(user.password);
  await page.getByRole("button", { name: "Register with two-factor app" }).click();
  const firstCodes = await readRecoveryCodes(page);
  await page.getByRole("button", { name: "I have stored my recovery codes" }).click();

  const regenerate = page.getByRole("form", { name: "Regenerate recovery codes" });
  await regenerate.getByLabel("Current password").fill(user.password);
  await regenerate.getByRole("button", { name: "Regenerate recovery codes" }).click();
  await expect(page.getByText("New recovery codes were generated.", { exact: false })).toBeVisible();
  const newCodes = await readRecoveryCodes(page);
  expect(newCodes).not.toContain(firstCodes[0]);

  await page.getByRole("button", { name: "Copy codes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "copied" })).toHaveText("The recovery codes were copied to the clipboard.");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${newCodes.join("\n")}\n`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download codes" }).click()]);
  expect(download.suggestedFilename()).toBe(`${new URL(baseURL!).hostname}-recovery-codes.txt`);
  expect(readFileSync((await download.path())!, "utf8")).toBe(`${newCodes.join("\n")}\n`);

  const disable = page.getByRole("form", { name: "Disable two-factor authentication" });
  await disable.getByLabel("Current password").fill("wrong password");
  await disable.getByRole("button", { name: "Disable two-factor authentication" }).click();
  await expect(disable.getByText("Password is incorrect")).toBeVisible();
  await disable.getByLabel("Current password").fill(user.password);
  await disable.getByRole("button", { name: "Disable two-factor authentication" }).click();
  await expect(page.getByLabel("Secret key")).toBeVisible();
  await expect(page.getByText("Two-factor authentication has been disabled.")).toBeVisible();

  await signOut(page);
  await signIn(page, user.username, user.password);
});
