import { expect, test, type APIRequestContext } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { signIn, signOut } from "../support/browser";

async function post(request: APIRequestContext, token: string, path: string, data: Record<string, unknown>, method: "post" | "put" = "post") {
  const response = await request[method](`/api/v4${path}`, { headers: asToken(token), data });
  expect(response.status(), `${method} ${path}`).toBe(method === "post" ? 201 : 200);
  return (await response.json()) as { id: number; iid: number; web_url: string };
}

test("the milestones page lists them by state; a milestone's page, its web_url, shows the issues the visitor may read", async ({ page, request, browser }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const base = `/projects/${project.id}`;
  const v1 = await post(request, owner.token, `${base}/milestones`, { title: "v1", start_date: "2030-01-01", due_date: "2030-01-31", description: "Ship it.\n<b>second</b> line" });
  await post(request, owner.token, `${base}/milestones`, { title: "v2" });
  const old = await post(request, owner.token, `${base}/milestones`, { title: "Old", due_date: "2020-05-01" });
  await post(request, owner.token, `${base}/milestones/${old.id}`, { state_event: "close" }, "put");
  await post(request, owner.token, `${base}/issues`, { title: "Open one", milestone_id: v1.id });
  const done = await post(request, owner.token, `${base}/issues`, { title: "Done one", milestone_id: v1.id });
  await post(request, owner.token, `${base}/issues/${done.iid}`, { state_event: "close" }, "put");
  await post(request, owner.token, `${base}/issues`, { title: "Secret one", milestone_id: v1.id, confidential: true });
  await post(request, owner.token, `${base}/issues`, { title: "Elsewhere" });

  const anonymous = await browser.newPage();
  try {
    await anonymous.goto(`/${project.path_with_namespace}/-/milestones`);
    await expect(anonymous.getByRole("link", { name: "Milestones" })).toHaveAttribute("aria-current", "page");
    await expect(anonymous.locator("tbody tr")).toHaveText(["v1Jan 1, 2030–Jan 31, 2030open", "v2No datesopen"]);
    await anonymous.getByRole("link", { name: "Closed" }).click();
    await expect(anonymous).toHaveURL(/\/-\/milestones\?state=closed$/);
    await expect(anonymous.locator("tbody tr")).toHaveText(["OldDue May 1, 2020closed"]);

    const v1Path = new URL(v1.web_url).pathname;
    expect(v1Path).toBe(`/${project.path_with_namespace}/-/milestones/${v1.iid}`);
    const response = await anonymous.goto(v1Path);
    expect(response?.status()).toBe(200);
    await expect(anonymous).toHaveTitle(/^v1 · Milestones · Project_[0-9a-f]{8} · /);
    await expect(anonymous.getByRole("heading", { level: 2, name: "v1" })).toBeVisible();
    await expect(anonymous.getByTestId("milestone-state")).toHaveText("Open");
    // The description as written: markup in it is text.
    await expect(anonymous.getByText("Ship it.")).toHaveText("Ship it.\n<b>second</b> line");
    await expect(anonymous.locator("tbody tr")).toHaveText([/^#1 Open oneopen/]);
    await anonymous.getByRole("link", { name: "All", exact: true }).click();
    // Not the confidential issue: an anonymous visitor may not read it.
    await expect(anonymous.locator("tbody tr")).toHaveText([/^#2 Done oneclosed/, /^#1 Open oneopen/]);
  } finally {
    await anonymous.close();
  }

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  await page.getByRole("link", { name: "v1" }).click();
  await expect(page).toHaveURL(new RegExp(`/-/milestones/${v1.iid}$`));
  await page.getByRole("link", { name: "Closed" }).click();
  await expect(page.locator("tbody tr")).toHaveText([/^#2 Done oneclosed/]);
  await page.getByRole("link", { name: "All", exact: true }).click();
  await expect(page.locator("tbody tr")).toHaveText([/^#3 Secret oneconfidentialopen/, /^#2 Done oneclosed/, /^#1 Open oneopen/]);
});

test("a private project's milestones are a 404 to anonymous visitors and non-members, as is a milestone that does not exist", async ({ page, request, browser }) => {
  const owner = await createUser(request);
  const outsider = await createUser(request);
  const project = await createProject(request, owner.token);
  const milestone = await post(request, owner.token, `/projects/${project.id}/milestones`, { title: "Hidden" });
  const milestonePath = new URL(milestone.web_url).pathname;

  const anonymous = await browser.newPage();
  try {
    expect((await anonymous.goto(`/${project.path_with_namespace}/-/milestones`))?.status()).toBe(404);
    expect((await anonymous.goto(milestonePath))?.status()).toBe(404);
  } finally {
    await anonymous.close();
  }
  await signIn(page, outsider.username, outsider.password);
  expect((await page.goto(`/${project.path_with_namespace}/-/milestones`))?.status()).toBe(404);
  expect((await page.goto(milestonePath))?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();

  await signOut(page);
  await signIn(page, owner.username, owner.password);
  expect((await page.goto(milestonePath))?.status()).toBe(200);
  expect((await page.goto(`/${project.path_with_namespace}/-/milestones/99`))?.status()).toBe(404);
  expect((await page.goto(`/${project.path_with_namespace}/-/milestones/x`))?.status()).toBe(404);
});
