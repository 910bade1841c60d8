import { expect, test, type Browser, type Page } from "@playwright/test";
import { asToken, createUser, expectJson, isoTimestamp, rootPassword, rootToken, uniqueName } from "../support/api";
import { signIn, signUp, submitSignIn, withFreshApi } from "../support/browser";
import { mailedLinks, waitForMailedLink } from "../support/mail";

const confirmNotice = (page: Page) => page.getByRole("status").filter({ hasText: "Please confirm your email address" });

/** A second browser, signed in as `login`: to watch its session end when something happens elsewhere. */
async function otherBrowser(browser: Browser, baseURL: string | undefined, login: string, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, login, password);
  return page;
}

/** Whether the session cookie of `page`'s browser still reads the API (our pages' GET fallback). */
async function apiSessionStatus(page: Page): Promise<number> {
  return (await page.request.get("/api/v4/user")).status();
}

async function expectSessionEnded(page: Page): Promise<void> {
  await page.goto("/profile");
  await expect(page).toHaveURL(/\/users\/sign_in\?callbackUrl=%2Fprofile$/);
  expect(await apiSessionStatus(page)).toBe(401);
}

test("email confirmation through the mailed link: resend replaces it, it confirms once, the notice goes away", async ({ page }, testInfo) => {
  const username = uniqueName("confirm");
  const email = `${username}@example.com`;
  await signUp(page, { username, email, password: "a long enough password" });
  await expect(confirmNotice(page)).toContainText(email);
  const first = await waitForMailedLink(testInfo.project.name, email);
  expect(first).toMatch(/^\/users\/confirmation\?confirmation_token=[A-Za-z0-9_-]{43}$/);

  await confirmNotice(page).getByRole("button", { name: "Resend confirmation email" }).click();
  await expect(confirmNotice(page)).toContainText(`A new confirmation link is on its way to ${email}.`);
  const second = await waitForMailedLink(testInfo.project.name, email, 2);
  expect(second).not.toBe(first);

  await page.goto(first);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("This confirmation link is not valid. It may have been replaced by a newer one.");
  await expect(page.getByRole("link", { name: "Request a new confirmation link" })).toBeVisible();

  await page.goto(second);
  await expect(page).toHaveURL(/\/users\/confirmation\/result\?outcome=confirmed$/);
  await expect(page.getByText("Your email address has been successfully confirmed.")).toBeVisible();
  await expect(confirmNotice(page)).toHaveCount(0);
  await page.goto("/profile");
  await expect(page.getByRole("definition").filter({ hasText: email })).toContainText("Confirmed");

  await page.goto(second);
  await expect(page.getByText("Your email address was already confirmed. Please try signing in.")).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "Sign in" })).toBeVisible();
  expect(mailedLinks(testInfo.project.name, email)).toHaveLength(2);
});

test("resending confirmation answers the same whatever the address, and mails only an unconfirmed account", async ({ page, request }, testInfo) => {
  const confirmed = await createUser(request);
  const unconfirmed = await createUser(request, { confirmed: false });
  const answer = "If your email address exists in our database and is not confirmed yet, you will receive an email with instructions for how to confirm your email address in a few minutes.";
  await page.goto("/users/confirmation/new");
  for (const email of [`${uniqueName("nobody")}@example.com`, confirmed.email, unconfirmed.email]) {
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Resend" }).click();
    await expect(page.getByRole("status")).toHaveText(answer);
  }
  // The admin API mailed the first link when it created the account; the form mailed the second.
  await waitForMailedLink(testInfo.project.name, unconfirmed.email, 2);
  expect(mailedLinks(testInfo.project.name, confirmed.email)).toEqual([]);
});

test("password reset by email: the same answer for any address; the link sets a new password once and ends every session", async ({
  page,
  request,
  browser,
  baseURL,
}, testInfo) => {
  const user = await createUser(request);
  const elsewhere = await otherBrowser(browser, baseURL, user.username, user.password);
  expect(await apiSessionStatus(elsewhere)).toBe(200);

  const answer = "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.";
  await page.goto("/users/sign_in");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page).toHaveURL(/\/users\/password\/new$/);
  for (const email of [`${uniqueName("nobody")}@example.com`, user.email.toUpperCase()]) {
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Reset password" }).click();
    await expect(page.getByRole("status")).toHaveText(answer);
  }
  const link = await waitForMailedLink(testInfo.project.name, user.email);
  expect(link).toMatch(/^\/users\/password\/edit\?reset_password_token=[A-Za-z0-9_-]{43}$/);

  const newPassword = "a password chosen after a reset";
  await page.goto(link);
  await page.getByLabel("New password").fill(newPassword);
  await page.getByLabel("Password confirmation").fill("something else");
  await page.getByRole("button", { name: "Change your password" }).click();
  await expect(page.getByText("Passwords do not match.")).toBeVisible();
  await page.getByLabel("Password confirmation").fill(newPassword);
  await page.getByRole("button", { name: "Change your password" }).click();
  await expect(page).toHaveURL(/\/users\/sign_in\?notice=password_reset$/);
  await expect(page.getByRole("status")).toHaveText("Your password has been changed successfully. Sign in with your new password.");

  await submitSignIn(page, user.username, user.password);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid login or password.");
  await signIn(page, user.username, newPassword);

  await expectSessionEnded(elsewhere);
  await page.goto(link);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("This password reset link is not valid. It may have been used already, or replaced by a newer one.");
  await expect(page.getByRole("link", { name: "Request a new password reset link" })).toBeVisible();
  await elsewhere.context().close();
});

test("a pending password reset link stops working when an admin changes the address or the password, and when the owner changes the password", async ({
  page,
  request,
}, testInfo) => {
  const user = await createUser(request);
  const invalid = "This password reset link is not valid. It may have been used already, or replaced by a newer one.";
  const requestLink = async (email: string, count: number) => {
    await page.goto("/users/password/new");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Reset password" }).click();
    await expect(page.getByRole("status")).toContainText("you will receive a password recovery link");
    return waitForMailedLink(testInfo.project.name, email, count);
  };
  const expectVoid = async (link: string) => {
    await page.goto(link);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText(invalid);
    await expect(page.getByLabel("New password")).toHaveCount(0);
  };
  const adminUpdate = async (data: Record<string, unknown>) => {
    const response = await request.put(`/api/v4/users/${user.id}`, { headers: asToken(rootToken), data });
    expect(response.status(), await response.text()).toBe(200);
  };

  // A change that touches neither keeps the link.
  const kept = await requestLink(user.email, 1);
  await adminUpdate({ bio: "Unrelated" });
  await page.goto(kept);
  await expect(page.getByLabel("New password")).toBeVisible();

  await adminUpdate({ email: `moved-${user.email}`, skip_reconfirmation: true });
  await expectVoid(kept);

  const beforePasswordChange = await requestLink(`moved-${user.email}`, 1);
  await adminUpdate({ password: "an admin sets this password" });
  await expectVoid(beforePasswordChange);

  const beforeOwnChange = await requestLink(`moved-${user.email}`, 2);
  await signIn(page, user.username, "an admin sets this password");
  await page.goto("/profile/password/edit");
  await page.getByLabel("Current password").fill("an admin sets this password");
  await page.getByLabel("New password").fill("the owner's own password");
  await page.getByLabel("Password confirmation").fill("the owner's own password");
  await page.getByRole("button", { name: "Save password" }).click();
  await expect(page).toHaveURL(/\/users\/sign_in\?notice=password_changed$/);
  await expectVoid(beforeOwnChange);
});

test("changing the password needs the current one and signs out every browser, this one included", async ({ page, request, browser, baseURL }) => {
  const user = await createUser(request);
  const elsewhere = await otherBrowser(browser, baseURL, user.username, user.password);
  expect(await apiSessionStatus(elsewhere)).toBe(200);
  await signIn(page, user.username, user.password);

  await page.goto("/profile");
  await page.getByRole("link", { name: "Password", exact: true }).click();
  await expect(page).toHaveURL(/\/profile\/password\/edit$/);
  const newPassword = "a freshly changed password";
  await page.getByLabel("Current password").fill("not the current password");
  await page.getByLabel("New password").fill(newPassword);
  await page.getByLabel("Password confirmation").fill(newPassword);
  await page.getByRole("button", { name: "Save password" }).click();
  await expect(page.getByText("Current password is incorrect")).toBeVisible();
  expect(await apiSessionStatus(elsewhere)).toBe(200);

  await page.getByLabel("Current password").fill(user.password);
  await page.getByRole("button", { name: "Save password" }).click();
  await expect(page).toHaveURL(/\/users\/sign_in\?notice=password_changed$/);
  await expect(page.getByRole("status")).toHaveText("Password was successfully updated. Please sign in again.");
  await expectSessionEnded(elsewhere);
  await signIn(page, user.username, newPassword);
  await elsewhere.context().close();
});

test("wrong current passwords count toward the account lock; the one that locks it signs the account out everywhere and says so", async ({
  page,
  request,
  browser,
  baseURL,
}) => {
  const user = await createUser(request);
  const elsewhere = await otherBrowser(browser, baseURL, user.username, user.password);
  await signIn(page, user.username, user.password);
  // The e2e servers lock an account after five failures (SIGN_IN_MAX_ATTEMPTS=5): two on the two-factor page...
  await page.goto("/profile/two_factor_auth");
  for (let attempt = 1; attempt <= 2; attempt++) {
    await page.getByLabel("Verification code").fill("000000");
    await page.getByLabel("Current password").fill(`not my password ${attempt}`);
    await page.getByRole("button", { name: "Register with two-factor app" }).click();
    await expect(page.getByText("Password is incorrect")).toBeVisible();
  }
  // ...and three on the password page, the last of which locks the account.
  await page.goto("/profile/password/edit");
  const newPassword = "a password guessed into";
  await page.getByLabel("New password").fill(newPassword);
  await page.getByLabel("Password confirmation").fill(newPassword);
  for (let attempt = 3; attempt <= 4; attempt++) {
    await page.getByLabel("Current password").fill(`not my password ${attempt}`);
    await page.getByRole("button", { name: "Save password" }).click();
    await expect(page.getByText("Current password is incorrect")).toBeVisible();
  }
  expect(await apiSessionStatus(elsewhere)).toBe(200);
  await page.getByLabel("Current password").fill("not my password 5");
  await page.getByRole("button", { name: "Save password" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(
    "Too many wrong passwords: your account is locked for 10 minutes and signed out everywhere. Sign in again after that, or reset your password by email.",
  );
  await expectSessionEnded(elsewhere);
  await page.goto("/profile/password/edit");
  await expect(page).toHaveURL(/\/users\/sign_in\?callbackUrl=/);
  // Locked like a failed sign-in locks it: the right password does not sign in, whichever login is typed.
  for (const login of [user.username, user.email]) {
    await submitSignIn(page, login, user.password);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Your account is locked. Try again later.");
  }
  await elsewhere.context().close();
});

test("sign out everywhere ends every session of the account, and no one else's", async ({ page, request, browser, baseURL }) => {
  const user = await createUser(request);
  const other = await createUser(request);
  const elsewhere = await otherBrowser(browser, baseURL, user.username, user.password);
  const otherUser = await otherBrowser(browser, baseURL, other.username, other.password);
  await signIn(page, user.username, user.password);
  await page.goto("/profile");
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(page).toHaveURL(/\/users\/sign_in\?notice=signed_out_everywhere$/);
  await expect(page.getByRole("status")).toHaveText("You have been signed out everywhere. Please sign in again.");
  await expectSessionEnded(elsewhere);
  expect(await apiSessionStatus(otherUser)).toBe(200);
  await elsewhere.context().close();
  await otherUser.context().close();
});

test("blocking through the API ends the user's browser session at once; unblocking lets them sign in again", async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  expect(await apiSessionStatus(page)).toBe(200);

  await withFreshApi(playwright, baseURL, async (api) => {
    await expectJson(await api.post(`/api/v4/users/${user.id}/block`, { headers: asToken(rootToken) }), 201, true);
  });
  await expectSessionEnded(page);
  await submitSignIn(page, user.username, user.password);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Your account has been blocked.");

  await withFreshApi(playwright, baseURL, async (api) => {
    await expectJson(await api.post(`/api/v4/users/${user.id}/unblock`, { headers: asToken(rootToken) }), 201, true);
  });
  await signIn(page, user.username, user.password);
});

test("an admin confirms, blocks and unblocks a user in the admin area, which is not found for anyone else", async ({
  page,
  request,
  browser,
  baseURL,
}) => {
  const user = await createUser(request, { confirmed: false });
  const someone = await createUser(request);
  const nonAdmin = await otherBrowser(browser, baseURL, someone.username, someone.password);
  for (const path of ["/admin/users", `/admin/users/${user.username}`]) {
    const response = await nonAdmin.goto(path);
    expect(response?.status()).toBe(404);
    await expect(nonAdmin.getByRole("heading", { name: "Page not found" })).toBeVisible();
  }
  await expect(nonAdmin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
  await nonAdmin.context().close();

  await signIn(page, "root", rootPassword);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  await page.getByLabel("Search by name, username or email").fill(user.username);
  await page.getByRole("button", { name: "Search" }).click();
  const rows = page.getByRole("row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText(user.email);
  await expect(rows.nth(1)).toContainText("Unconfirmed");
  await rows.nth(1).getByRole("link", { name: `User ${user.username}` }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/users/${user.username}$`));

  await page.getByRole("button", { name: "Confirm user" }).click();
  await expect(page.getByRole("button", { name: "Confirm user" })).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText("Unconfirmed");
  const shown = await request.get(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) });
  expect(await shown.json()).toMatchObject({ confirmed_at: isoTimestamp, state: "active" });

  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Block", exact: true }).click();
  await expect(page.getByRole("button", { name: "Unblock" })).toBeVisible();
  expect((await (await request.get(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) })).json()).state).toBe("blocked");
  await page.getByRole("button", { name: "Unblock" }).click();
  await expect(page.getByRole("button", { name: "Block", exact: true })).toBeVisible();
  expect((await (await request.get(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) })).json()).state).toBe("active");
});
