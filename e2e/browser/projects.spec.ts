import { expect, test } from "@playwright/test";
import { asToken, createUser, uniqueName } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";

test("create a project, add a Developer by username, remove them", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  const colleague = await createUser(request);
  await signIn(page, owner.username, owner.password);

  await page.getByRole("link", { name: "New project" }).click();
  const name = uniqueName("Browser Project");
  const path = name.toLowerCase().replace(/ /g, "-");
  await page.getByLabel("Project name").fill(name);
  await page.getByLabel("Project description (optional)").fill("Made in the browser");
  await page.getByRole("radio", { name: /^Internal/ }).check();
  await page.getByRole("button", { name: "Create project" }).click();

  await expect(page).toHaveURL(new RegExp(`/${owner.username}/${path}$`));
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  await expect(page.getByText("Made in the browser")).toBeVisible();
  const details = page.locator("dl");
  await expect(details).toContainText("internal");
  await expect(details).toContainText("Owner");
  await expect(page.getByLabel("Clone with HTTP")).toHaveValue(`${baseURL}/${owner.username}/${path}.git`);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Projects" }).click();
  const listRow = page.getByRole("row").filter({ hasText: name });
  await expect(listRow).toContainText(`${owner.username}/${path}`);
  await expect(listRow).toContainText("internal");
  await expect(listRow).toContainText("Owner");
  await listRow.getByRole("link", { name }).click();

  await page.getByRole("link", { name: "Members" }).first().click();
  await expect(page).toHaveURL(new RegExp(`/${owner.username}/${path}/-/project_members$`));
  await page.getByLabel("Username").fill(colleague.username);
  await page.getByLabel("Role", { exact: true }).selectOption({ label: "Developer" });
  await page.getByRole("button", { name: "Add member" }).click();
  const memberRow = page.getByRole("row").filter({ hasText: `@${colleague.username}` });
  await expect(memberRow.getByLabel(`Role of @${colleague.username}`)).toHaveValue("30");

  const id = await withFreshApi(playwright, baseURL, async (api) => {
    const project = await api.get(`/api/v4/projects/${encodeURIComponent(`${owner.username}/${path}`)}`, { headers: asToken(owner.token) });
    const { id: projectId } = (await project.json()) as { id: number };
    const members = await api.get(`/api/v4/projects/${projectId}/members`, { headers: asToken(owner.token) });
    expect(members.status()).toBe(200);
    expect(await members.json()).toContainEqual(expect.objectContaining({ username: colleague.username, access_level: 30 }));
    return projectId;
  });

  // Adding them again, or someone who does not exist, is reported on the username, which takes the focus.
  const username = page.getByRole("combobox", { name: "Username" });
  await username.fill(colleague.username);
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText(`@${colleague.username} is already a member of this project`)).toBeVisible();
  await expect(username).toBeFocused();
  await expect(username).toHaveAttribute("aria-invalid", "true");
  await username.fill(uniqueName("nobody"));
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText("Username does not belong to any user")).toBeVisible();
  await expect(username).toBeFocused();

  page.once("dialog", (dialog) => void dialog.accept());
  await memberRow.getByRole("button", { name: `Remove @${colleague.username}` }).click();
  await expect(memberRow).toHaveCount(0);
  await withFreshApi(playwright, baseURL, async (api) => {
    const after = await api.get(`/api/v4/projects/${id}/members`, { headers: asToken(owner.token) });
    expect(await after.json()).not.toContainEqual(expect.objectContaining({ username: colleague.username }));
  });
});

test("a Developer sees the members but cannot manage them", async ({ page, request }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const created = await request.post("/api/v4/projects", { headers: asToken(owner.token), data: { name: uniqueName("team") } });
  const project = (await created.json()) as { id: number; path_with_namespace: string };
  await request.post(`/api/v4/projects/${project.id}/members`, {
    headers: asToken(owner.token),
    data: { user_id: developer.id, access_level: 30 },
  });

  await signIn(page, developer.username, developer.password);
  await page.goto(`/${project.path_with_namespace}/-/project_members`);
  await expect(page.getByRole("row").filter({ hasText: `@${owner.username}` })).toContainText("Owner");
  await expect(page.getByRole("row").filter({ hasText: `@${developer.username}` })).toContainText("Developer");
  await expect(page.getByRole("button", { name: "Add member" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
});

test("a new project needs a valid name", async ({ page, request }) => {
  const owner = await createUser(request);
  await signIn(page, owner.username, owner.password);
  await page.goto("/projects/new");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Enter a project name.")).toBeVisible();

  await page.getByLabel("Project name").fill("-starts with a dash");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Name must start with a letter, digit or '_'")).toBeVisible();
  await expect(page).toHaveURL(/\/projects\/new$/);
});
