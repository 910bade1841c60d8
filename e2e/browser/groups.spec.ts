import { expect, test, type APIRequestContext } from "@playwright/test";
import { asToken, createUser, uniqueName, type CreatedUser } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";

/** A group made through the API (as its Owner), below `parentId` when given. */
async function createGroup(request: APIRequestContext, owner: CreatedUser, options: { parentId?: number; visibility?: string } = {}) {
  const path = uniqueName("group").toLowerCase();
  const response = await request.post("/api/v4/groups", {
    headers: asToken(owner.token),
    data: { name: `Group ${path}`, path, visibility: options.visibility ?? "private", parent_id: options.parentId },
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: number; name: string; full_path: string; full_name: string };
}

test("a user creates a group and a subgroup, then a project in the subgroup, whose pages live at its nested path", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  await signIn(page, owner.username, owner.password);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Groups" }).click();
  await expect(page.getByText("You are not a member of any group yet.")).toBeVisible();
  await page.getByRole("link", { name: "New group" }).click();
  const path = uniqueName("acme").toLowerCase();
  await page.getByLabel("Group name").fill("Acme Corporation");
  await page.getByLabel("Group URL").fill(path);
  await page.getByRole("radio", { name: /^Public/ }).check();
  await page.getByRole("button", { name: "Create group" }).click();
  await expect(page).toHaveURL(new RegExp(`/groups/${path}$`));
  await expect(page.getByRole("heading", { name: "Acme Corporation", level: 1 })).toBeVisible();
  await expect(page.getByText("No subgroups to show.")).toBeVisible();

  // The subgroup's path is made from its name; its page is below the parent's, and its breadcrumbs lead back.
  await page.getByRole("link", { name: "New subgroup" }).click();
  await expect(page.getByRole("heading", { name: "New subgroup", level: 1 })).toBeVisible();
  await page.getByLabel("Group name").fill("Platform Team");
  await page.getByRole("radio", { name: /^Internal/ }).check();
  await page.getByRole("button", { name: "Create subgroup" }).click();
  await expect(page).toHaveURL(new RegExp(`/groups/${path}/platform-team$`));
  await expect(page.getByRole("heading", { name: "Platform Team", level: 1 })).toBeVisible();
  await expect(page.locator(".breadcrumbs")).toHaveText("Acme Corporation / Platform Team");

  // "New project" from the subgroup chooses it in the form's namespace picker, which also offers the user's own.
  await page.getByRole("link", { name: "New project" }).click();
  const namespace = page.getByLabel("Project URL namespace");
  await expect(namespace.locator("option:checked")).toHaveText(`${path}/platform-team`);
  await expect(namespace.locator("option")).toHaveText([owner.username, path, `${path}/platform-team`]);
  await page.getByLabel("Project name").fill("Billing API");
  // A project is never more visible than its group: said on the form, then chosen within it.
  await page.getByRole("radio", { name: /^Public/ }).check();
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Visibility level public is not allowed in a internal group.");
  await page.getByRole("radio", { name: /^Internal/ }).check();
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(new RegExp(`/${path}/platform-team/billing-api$`));
  await expect(page.getByRole("heading", { name: "Billing API", level: 1 })).toBeVisible();
  await expect(page.locator(".breadcrumbs")).toHaveText("Acme Corporation / Platform Team / Billing API");
  await expect(page.getByLabel("Clone with HTTP")).toHaveValue(`${baseURL}/${path}/platform-team/billing-api.git`);

  // Every project page answers at the nested path.
  for (const [tab, url] of [
    ["Issues", "/-/issues"],
    ["Activity", "/activity"],
    ["Alerts", "/-/alert_management"],
    ["Members", "/-/project_members"],
  ] as const) {
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: tab }).click();
    await expect(page).toHaveURL(new RegExp(`/${path}/platform-team/billing-api${url}$`));
    await expect(page).toHaveTitle(new RegExp(`^${tab} · Billing API`));
  }

  await withFreshApi(playwright, baseURL, async (api) => {
    const project = await api.get(`/api/v4/projects/${encodeURIComponent(`${path}/platform-team/billing-api`)}`, { headers: asToken(owner.token) });
    expect(await project.json()).toMatchObject({ path_with_namespace: `${path}/platform-team/billing-api`, visibility: "internal", namespace: { kind: "group" } });
  });

  // The subgroup's activity shows its project's, and its feed is at `/groups/<full path>.atom`.
  await page.goto(`/groups/${path}/platform-team`);
  await page.getByRole("navigation", { name: "Group" }).getByRole("link", { name: "Activity" }).click();
  await expect(page).toHaveURL(new RegExp(`/groups/${path}/platform-team/-/activity$`));
  await expect(page.getByRole("main")).toContainText(`created project ${path}/platform-team/billing-api`);
  await expect(page.getByRole("link", { name: "Subscribe" })).toHaveAttribute("href", `/groups/${path}/platform-team.atom`);

  // The dashboard lists both groups; a group's and a subgroup's path without `/groups` lead to their pages.
  await page.goto("/dashboard/groups");
  await expect(page.getByRole("row").filter({ hasText: `${path}/platform-team` })).toContainText("Owner");
  await expect(page.getByRole("link", { name: "Acme Corporation", exact: true })).toBeVisible();
  await page.goto(`/${path}/platform-team`);
  await expect(page).toHaveURL(new RegExp(`/groups/${path}/platform-team$`));
  await page.goto(`/groups/${path}`);
  await expect(page.getByRole("row").filter({ hasText: "Platform Team" })).toContainText(`${path}/platform-team`);
});

test("an Owner adds a member on the group's page, who then sees the private subgroup and its project; removed, they see neither", async ({
  page,
  browser,
  request,
}) => {
  const owner = await createUser(request);
  const colleague = await createUser(request);
  const group = await createGroup(request, owner);
  const subgroup = await createGroup(request, owner, { parentId: group.id });
  const created = await request.post("/api/v4/projects", { headers: asToken(owner.token), data: { name: "Ledger", namespace_id: subgroup.id } });
  expect(created.status()).toBe(201);
  const projectPath = `${subgroup.full_path}/ledger`;

  const colleagueContext = await browser.newContext();
  const colleaguePage = await colleagueContext.newPage();
  await signIn(colleaguePage, colleague.username, colleague.password);
  for (const url of [`/groups/${group.full_path}`, `/groups/${subgroup.full_path}`, `/${projectPath}`]) {
    expect((await colleaguePage.goto(url))?.status(), url).toBe(404);
  }

  await signIn(page, owner.username, owner.password);
  await page.goto(`/groups/${group.full_path}/-/group_members`);
  await page.getByLabel("Username").fill(colleague.username);
  await page.getByLabel("Role", { exact: true }).selectOption({ label: "Developer" });
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText(`@${colleague.username} was added to the group.`)).toBeVisible();
  await expect(page.getByLabel(`Role of @${colleague.username}`)).toHaveValue("30");

  // Inherited: the subgroup's members page shows the role from above, and the project page shows it as theirs.
  await colleaguePage.goto(`/groups/${subgroup.full_path}/-/group_members`);
  const inherited = colleaguePage.getByRole("region", { name: /^Inherited from the groups above/ });
  await expect(inherited.getByRole("row").filter({ hasText: `@${colleague.username}` })).toContainText("Developer");
  await expect(colleaguePage.getByRole("navigation", { name: "Group" }).getByRole("link", { name: "Settings" })).toHaveCount(0);
  expect((await colleaguePage.goto(`/groups/${group.full_path}/-/edit`))?.status()).toBe(404);
  await colleaguePage.goto(`/${projectPath}`);
  await expect(colleaguePage.locator("dl")).toContainText("Developer");

  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: `Remove @${colleague.username}` }).click();
  await expect(page.getByRole("row").filter({ hasText: `@${colleague.username}` })).toHaveCount(0);
  expect((await colleaguePage.goto(`/${projectPath}`))?.status()).toBe(404);
  await colleagueContext.close();
});

test("an Owner renames the group's path in its settings, its project follows, and deleting it takes the project too", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  const group = await createGroup(request, owner, { visibility: "public" });
  const created = await request.post("/api/v4/projects", { headers: asToken(owner.token), data: { name: "Storefront", namespace_id: group.id, visibility: "public" } });
  expect(created.status()).toBe(201);

  await signIn(page, owner.username, owner.password);
  await page.goto(`/groups/${group.full_path}`);
  await page.getByRole("navigation", { name: "Group" }).getByRole("link", { name: "Settings" }).click();
  const renamed = uniqueName("shop").toLowerCase();
  await expect(page.getByLabel("Group URL")).toHaveValue(group.full_path);
  // A visibility the projects inside would exceed is refused, and said why.
  await page.getByRole("radio", { name: /^Private/ }).check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("private is not allowed since this group contains projects with higher visibility.");
  await page.getByRole("radio", { name: /^Public/ }).check();
  await page.getByLabel("Group name").fill("Shop");
  await page.getByLabel("Group URL").fill(renamed);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/groups/${renamed}$`));
  await expect(page.getByRole("heading", { name: "Shop", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Storefront" }).click();
  await expect(page).toHaveURL(new RegExp(`/${renamed}/storefront$`));
  // The old paths lead to the group's pages and the project's at their new paths.
  for (const [old, now] of [
    [`/groups/${group.full_path}`, `/groups/${renamed}`],
    [`/groups/${group.full_path}/-/group_members`, `/groups/${renamed}/-/group_members`],
    [`/groups/${group.full_path}/-/activity`, `/groups/${renamed}/-/activity`],
    [`/${group.full_path}/storefront/-/issues`, `/${renamed}/storefront/-/issues`],
  ] as const) {
    expect((await page.goto(old))?.status()).toBe(200);
    await expect(page).toHaveURL(new RegExp(`${now}$`));
  }

  await page.goto(`/groups/${renamed}/-/edit`);
  await page.getByRole("button", { name: "Delete group" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete group" });
  await expect(dialog).toContainText("Delete Shop, its subgroups and all their projects?");
  await dialog.getByRole("button", { name: "Delete group" }).click();
  await expect(page).toHaveURL(/\/dashboard\/groups$/);
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await api.get(`/api/v4/groups/${group.id}`, { headers: asToken(owner.token) })).status()).toBe(404);
    expect((await api.get(`/api/v4/projects/${encodeURIComponent(`${renamed}/storefront`)}`, { headers: asToken(owner.token) })).status()).toBe(404);
  });
});
