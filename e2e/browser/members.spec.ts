import { expect, test } from "@playwright/test";
import { asToken, createProject, createProjectWithMember, createUser, utcDay } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";

test("a Maintainer changes a member's role and expiry in the table, with errors on the fields", async ({ page, request, playwright, baseURL }) => {
  const { owner, member: colleague, project } = await createProjectWithMember(request, 30);

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/project_members`);
  const role = page.getByLabel(`Role of @${colleague.username}`);
  const expiry = page.getByLabel(`Expiration date of @${colleague.username}`);
  const save = page.getByRole("button", { name: `Save role and expiry of @${colleague.username}` });
  await expect(role).toHaveValue("30");
  await expect(expiry).toHaveValue("");

  // A past date is refused on the date field.
  await expiry.fill(utcDay(-2));
  await save.click();
  const pastError = page.getByText("Expires at cannot be a date in the past");
  await expect(pastError).toBeVisible();
  await expect(expiry).toBeFocused();
  await expect(expiry).toHaveAttribute("aria-invalid", "true");

  const until = utcDay(30);
  await role.selectOption({ label: "Maintainer" });
  await expiry.fill(until);
  await save.click();
  await expect(page.getByRole("status").filter({ hasText: `@${colleague.username} is now Maintainer until ${until}.` })).toBeVisible();
  await withFreshApi(playwright, baseURL, async (api) => {
    const member = await api.get(`/api/v4/projects/${project.id}/members/${colleague.id}`, { headers: asToken(owner.token) });
    expect(await member.json()).toMatchObject({ access_level: 40, expires_at: until });
  });
  await page.reload();
  await expect(role).toHaveValue("40");
  await expect(expiry).toHaveValue(until);

  // The last Owner cannot demote themselves: a notice says why and takes the focus.
  await page.getByLabel(`Role of @${owner.username}`).selectOption({ label: "Developer" });
  await page.getByRole("button", { name: `Save role and expiry of @${owner.username}` }).click();
  const refusal = page.getByRole("main").getByRole("alert").filter({ hasText: "last Owner cannot be removed or demoted" });
  await expect(refusal).toBeVisible();
  await expect(refusal).toBeFocused();
  await page.screenshot({ path: test.info().outputPath("members-edit.png"), fullPage: true });
});

test("typing part of a name suggests users, without their email addresses", async ({ page, request, playwright, baseURL }) => {
  const owner = await createUser(request);
  const colleague = await createUser(request);
  const project = await createProject(request, owner.token);

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/project_members`);
  const username = page.getByRole("combobox", { name: "Username" });
  await username.pressSequentially(colleague.username.slice(0, -1));
  const suggestions = page.getByRole("listbox", { name: "Suggested users" });
  const option = suggestions.getByRole("option", { name: `User ${colleague.username} @${colleague.username}` });
  await expect(option).toBeVisible();
  await expect(suggestions).not.toContainText("@example.com");
  await expect(username).toHaveAttribute("aria-expanded", "true");

  // Arrows and Enter choose without submitting.
  await username.press("ArrowDown");
  await username.press("Enter");
  await expect(username).toHaveValue(colleague.username);
  await expect(suggestions).toBeHidden();
  await page.getByLabel("Role", { exact: true }).selectOption({ label: "Reporter" });
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByRole("status").filter({ hasText: `@${colleague.username} was added to the project.` })).toBeVisible();
  await withFreshApi(playwright, baseURL, async (api) => {
    const member = await api.get(`/api/v4/projects/${project.id}/members/${colleague.id}`, { headers: asToken(owner.token) });
    expect(await member.json()).toMatchObject({ access_level: 20 });
  });
});
