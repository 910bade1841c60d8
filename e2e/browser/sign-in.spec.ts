import { expect, test } from "@playwright/test";
import { createApplicationAsRoot } from "../support/oauth-browser";
import { createUser, uniqueName } from "../support/api";
import { expectSignedInAs, signIn, signOut, signUp, submitSignIn } from "../support/browser";

test("sign up lands signed in; sign out; sign in again with username and with email", async ({ page }) => {
  const username = uniqueName("signup");
  const email = `${username}@example.com`;
  const password = "a long enough password";

  await signUp(page, { username, email, password });
  await expect(page.getByRole("heading", { name: "Projects", level: 1 })).toBeVisible();
  await expectSignedInAs(page, username);

  await signOut(page);
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/users\/sign_in\?callbackUrl=%2Fprojects$/);

  await signIn(page, username, password);
  await expectSignedInAs(page, username);
  await signOut(page);

  await signIn(page, email.toUpperCase(), password);
  await expectSignedInAs(page, username);

  await page.goto("/profile");
  await expect(page.getByRole("definition").filter({ hasText: email })).toBeVisible();
});

test("sign-up reports a taken username and mismatched passwords", async ({ page, request }) => {
  const existing = await createUser(request);
  await page.goto("/users/sign_up");
  await page.getByLabel("Name", { exact: true }).fill("Someone");
  await page.getByLabel("Username").fill(existing.username);
  await page.getByLabel("Email").fill(`${uniqueName("other")}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill("a long enough password");
  await page.getByLabel("Password confirmation").fill("something else entirely");
  await page.getByRole("button", { name: "Register" }).click();
  await expect(page.getByText("Passwords do not match.")).toBeVisible();

  await page.getByLabel("Password confirmation").fill("a long enough password");
  await page.getByRole("button", { name: "Register" }).click();
  await expect(page.getByText("Username has already been taken", { exact: true })).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/users\/sign_up$/);
});

test("a wrong password is refused with a message", async ({ page, request }) => {
  const user = await createUser(request);
  await page.goto("/users/sign_in");
  await submitSignIn(page, user.username, "not the password");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid login or password.");
  await expect(page).toHaveURL(/\/users\/sign_in$/);

  await submitSignIn(page, "nobody-has-this-name", "whatever");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid login or password.");
});

test("sign-in returns to a local callbackUrl and ignores foreign ones", async ({ page, request }) => {
  const user = await createUser(request);
  await page.goto(`/users/sign_in?callbackUrl=${encodeURIComponent("/profile/personal_access_tokens")}`);
  await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/profile\/personal_access_tokens$/);
  await signOut(page);

  await page.goto(`/users/sign_in?callbackUrl=${encodeURIComponent("//evil.example/steal")}`);
  await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/projects$/);
});

test("the sign-in page names the application asking only from its registration, never from the URL", async ({ page, request }) => {
  const app = await createApplicationAsRoot(request, { redirectUri: "https://client.example/callback", scopes: "read_user" });
  const asking = (query: string) => `/users/sign_in?callbackUrl=${encodeURIComponent(`/oauth/authorize?${query}`)}`;
  await page.goto(asking(`client_id=${app.uid}&response_type=code&name=Evil`));
  await expect(page.getByTestId("sign-in-purpose")).toHaveText(`Sign in to continue to ${app.name}, which is asking to access your account.`);
  await page.goto(`/users/sign_in?callbackUrl=${encodeURIComponent(`/oauth/authorize/consent?client_id=${app.uid}`)}`);
  await expect(page.getByTestId("sign-in-purpose")).toContainText(app.name);

  // Unknown clients, garbage and other destinations name nobody.
  for (const path of [asking("client_id=not-an-application"), asking("client_id=%00%01"), asking("application_name=Bank"), "/users/sign_in?callbackUrl=%2Fprofile"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByTestId("sign-in-purpose"), path).toHaveCount(0);
  }
  await page.goto(`/users/sign_in?callbackUrl=${encodeURIComponent("/oauth/device?user_code=ABCD-EFGH")}`);
  await expect(page.getByTestId("sign-in-purpose")).toHaveText("Sign in to authorize a device. You will check its code and what it asks for next.");
});

test("after five wrong passwords the account is locked, even for the right password", async ({ page, request }) => {
  const user = await createUser(request);
  await page.goto("/users/sign_in");
  for (let attempt = 1; attempt <= 5; attempt++) {
    await submitSignIn(page, user.username, `wrong password ${attempt}`);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid login or password.");
  }
  await submitSignIn(page, user.username, user.password);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Your account is locked. Try again later.");
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/users\/sign_in/);
});
