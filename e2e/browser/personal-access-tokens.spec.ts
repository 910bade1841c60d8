import { expect, test } from "@playwright/test";
import { createUser, expectJson, uniqueName } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";

test("create a read_api token, use it, revoke it", async ({ page, request, playwright, baseURL }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile");
  await page.getByRole("link", { name: "Personal access tokens" }).click();

  const name = uniqueName("cli");
  await page.getByLabel("Token name").fill(name);
  await page.getByRole("checkbox", { name: /^read_api/ }).check();
  await page.getByRole("button", { name: "Create personal access token" }).click();

  const tokenField = page.getByLabel("Your new personal access token");
  await expect(tokenField).toHaveValue(/^glpat-/);
  const token = await tokenField.inputValue();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("read_api");
  await expect(row).toContainText("Active");

  await withFreshApi(playwright, baseURL, async (api) => {
    const me = await api.get("/api/v4/user", { headers: { "PRIVATE-TOKEN": token } });
    expect(me.status()).toBe(200);
    expect((await me.json()).username).toBe(user.username);
  });

  // Shown once: after a reload only the table remains.
  await page.reload();
  await expect(page.getByLabel("Your new personal access token")).toHaveCount(0);

  page.once("dialog", (dialog) => void dialog.accept());
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);

  await withFreshApi(playwright, baseURL, async (api) =>
    expectJson(await api.get("/api/v4/user", { headers: { "PRIVATE-TOKEN": token } }), 401, {
      error: "invalid_token",
      error_description: "Token was revoked. You have to re-authorize from the user.",
    }),
  );
});

test("a token needs a name and a scope", async ({ page, request }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile/personal_access_tokens");
  await page.getByRole("button", { name: "Create personal access token" }).click();
  await expect(page.getByText("Enter a name for the token.")).toBeVisible();
  await expect(page.getByText("Select at least one scope.")).toBeVisible();
  await expect(page.getByLabel("Your new personal access token")).toHaveCount(0);
});

test("administrators may give their tokens the sudo scope, which then acts as another user; others are not offered it", async ({ page, request, playwright, baseURL }) => {
  const person = await createUser(request);
  await signIn(page, person.username, person.password);
  await page.goto("/profile/personal_access_tokens");
  await expect(page.getByRole("checkbox", { name: /^read_api/ })).toBeVisible();
  await expect(page.getByRole("checkbox", { name: /^sudo/ })).toHaveCount(0);

  const admin = await createUser(request, { admin: true });
  await page.context().clearCookies();
  await signIn(page, admin.username, admin.password);
  await page.goto("/profile/personal_access_tokens");
  await page.getByLabel("Token name").fill(uniqueName("sudo"));
  await page.getByRole("checkbox", { name: /^api/ }).check();
  await page.getByRole("checkbox", { name: /^sudo/ }).check();
  await page.getByRole("button", { name: "Create personal access token" }).click();
  const tokenField = page.getByLabel("Your new personal access token");
  await expect(tokenField).toHaveValue(/^glpat-/);
  const token = await tokenField.inputValue();

  await withFreshApi(playwright, baseURL, async (api) => {
    const me = await api.get(`/api/v4/user?sudo=${person.username}`, { headers: { "PRIVATE-TOKEN": token } });
    expect([me.status(), (await me.json()).username]).toEqual([200, person.username]);
  });
});
