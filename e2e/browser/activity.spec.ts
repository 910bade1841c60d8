import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { signIn, withFreshApi } from "../support/browser";
import { GitSandbox, remoteUrl } from "../support/git";

test("issues in the browser: open one, comment, close and reopen, and see it all in the activity feed", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await signIn(page, owner.username, owner.password);

  await page.goto(`/${project.path_with_namespace}/-/issues`);
  await expect(page.getByText("No issues to show.")).toBeVisible();
  await page.getByLabel("Title").fill("Browser bug");
  await page.getByLabel("Description").fill("Steps to reproduce");
  await page.getByRole("button", { name: "Create issue" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/issues/1$`));
  await expect(page.getByRole("heading", { name: /Browser bug/ })).toBeVisible();
  await expect(page.getByTestId("issue-state")).toHaveText("Open");

  await page.getByRole("textbox", { name: "Comment" }).fill("I can reproduce it");
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.locator(".comment-body")).toHaveText(["I can reproduce it"]);
  await page.getByRole("button", { name: "Close issue" }).click();
  await expect(page.getByTestId("issue-state")).toHaveText("Closed");
  await page.getByRole("button", { name: "Reopen issue" }).click();
  await expect(page.getByTestId("issue-state")).toHaveText("Open");

  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Activity" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/activity$`));
  const rows = page.getByRole("list", { name: "Activity" }).getByRole("listitem");
  await expect(rows).toHaveCount(5);
  await expect(rows.nth(0)).toContainText(`opened issue #1 Browser bug at ${project.path_with_namespace}`);
  await expect(rows.nth(1)).toContainText(`closed issue #1 Browser bug at ${project.path_with_namespace}`);
  await expect(rows.nth(2)).toContainText(`commented on issue #1 Browser bug at ${project.path_with_namespace}`);
  await expect(rows.nth(2)).toContainText("I can reproduce it");
  await expect(rows.nth(4)).toContainText(`created project ${project.path_with_namespace}`);
  await expect(rows.nth(0)).toContainText(/just now|seconds? ago|minutes? ago/);
  await rows.nth(2).getByRole("link", { name: "#1" }).click();
  await expect(page).toHaveURL(new RegExp(`/-/issues/1#note_\\d+$`));
});

test("the activity feed filters with chips, scrolls for more and shows pushes", async ({ page, request, baseURL, playwright }) => {
  test.setTimeout(120_000);
  const owner = await createUser(request);
  const member = await createUser(request);
  const project = await createProject(request, owner.token);
  const joined = await request.post(`/api/v4/projects/${project.id}/members`, { headers: asToken(owner.token), data: { user_id: member.id, access_level: 30 } });
  expect(joined.status()).toBe(201);
  // 45 issues (more than two pages of 20), a milestone, and a push.
  for (let index = 1; index <= 45; index += 1) {
    const response = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: `Feed issue ${index}` } });
    expect(response.status()).toBe(201);
  }
  const milestone = await request.post(`/api/v4/projects/${project.id}/milestones`, { headers: asToken(owner.token), data: { title: "v1" } });
  const { id: milestoneId } = (await milestone.json()) as { id: number };
  expect((await request.put(`/api/v4/projects/${project.id}/milestones/${milestoneId}`, { headers: asToken(owner.token), data: { state_event: "close" } })).status()).toBe(200);
  const git = new GitSandbox();
  try {
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    await git.commit(work, "README.md", "hi\n", "First pushed commit");
    await git.ok(["push", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), "main"], work);
  } finally {
    git.dispose();
  }

  await signIn(page, owner.username, owner.password);
  await page.goto("/dashboard/activity");
  const list = page.getByRole("list", { name: "Activity" });
  const rows = list.getByRole("listitem");
  await expect(rows.first()).toContainText(`pushed new branch main at ${project.path_with_namespace}`);
  await expect(rows.first()).toContainText("First pushed commit");
  await expect(rows).toHaveCount(20);

  // Scrolling to the end loads the next keyset page, and the next.
  await page.getByRole("button", { name: /Load more|Loading more/ }).scrollIntoViewIfNeeded();
  await expect(rows).toHaveCount(40);
  await page.getByRole("button", { name: /Load more|Loading more/ }).scrollIntoViewIfNeeded();
  await expect(rows).toHaveCount(49);
  await expect(page.getByText("End of activity.")).toBeVisible();
  const ids = await rows.evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-event-id"))));
  expect(new Set(ids).size).toBe(49);
  expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  await expect(rows.last()).toContainText(`created project ${project.path_with_namespace}`);

  // Chips filter through the API.
  await page.getByRole("group", { name: "Action" }).getByRole("button", { name: "Pushes" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("pushed new branch main");
  await page.getByRole("group", { name: "Action" }).getByRole("button", { name: "Closed" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("closed milestone %v1");
  await page.getByRole("group", { name: "Action" }).getByRole("button", { name: "All actions" }).click();
  await page.getByRole("group", { name: "Target type" }).getByRole("button", { name: "Milestones" }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText("opened milestone %v1");
  await page.getByRole("group", { name: "Target type" }).getByRole("button", { name: "All targets" }).click();

  // The member's joining is theirs, so it shows only with "All projects".
  await page.getByRole("group", { name: "Action" }).getByRole("button", { name: "Joined" }).click();
  await expect(page.getByText("No activity to show.")).toBeVisible();
  await page.getByRole("group", { name: "Scope" }).getByRole("button", { name: "All projects" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`joined project ${project.path_with_namespace}`);

  // The user page and the project page show the same kind of feed.
  await page.goto(`/${owner.username}`);
  await expect(page.getByRole("list", { name: "Activity" }).getByRole("listitem").first()).toContainText("pushed new branch main");

  // The session works only for reading the API, never for changing anything.
  await withFreshApi(playwright, baseURL, async () => {
    const cookies = await page.context().cookies();
    const cookieHeader = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
    const read = await page.request.get("/api/v4/events?per_page=1", { headers: { Cookie: cookieHeader } });
    expect(read.status()).toBe(200);
    const write = await page.request.post("/api/v4/projects", { headers: { Cookie: cookieHeader }, data: { name: "via-cookie" } });
    expect(write.status()).toBe(401);
  });
});

test("feed filters live in the URL: reload, Back and a shared link keep them; comments are one chip", async ({ page, request, browser }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const issues = `/api/v4/projects/${project.id}/issues`;
  expect((await request.post(issues, { headers: asToken(owner.token), data: { title: "Filtered issue" } })).status()).toBe(201);
  expect((await request.post(`${issues}/1/notes`, { headers: asToken(owner.token), data: { body: "A filtered comment" } })).status()).toBe(201);
  await signIn(page, owner.username, owner.password);
  const activityPath = `/${project.path_with_namespace}/activity`;
  await page.goto(activityPath);
  const rows = page.getByRole("list", { name: "Activity" }).getByRole("listitem");
  await expect(rows).toHaveCount(3);
  await expect(page.getByRole("button", { name: "Comments" })).toHaveCount(1);

  const actions = page.getByRole("group", { name: "Action" });
  const targets = page.getByRole("group", { name: "Target type" });
  await actions.getByRole("button", { name: "Comments" }).click();
  await expect(page).toHaveURL(new RegExp(`${activityPath}\\?action=commented$`));
  await expect(actions.getByRole("button", { name: "Comments" })).toHaveAttribute("aria-pressed", "true");
  await expect(actions.getByRole("button", { name: "All actions" })).toHaveAttribute("aria-pressed", "false");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("commented on issue #1 Filtered issue");
  await expect(page.getByRole("link", { name: "Subscribe", exact: true })).toHaveAttribute("href", `${activityPath}.atom?action=commented`);

  await page.reload();
  await expect(actions.getByRole("button", { name: "Comments" })).toHaveAttribute("aria-pressed", "true");
  await expect(rows).toHaveCount(1);

  await actions.getByRole("button", { name: "Created" }).click();
  await targets.getByRole("button", { name: "Issues" }).click();
  await expect(page).toHaveURL(new RegExp(`${activityPath}\\?action=created&target_type=issue$`));
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("opened issue #1 Filtered issue");

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${activityPath}\\?action=created$`));
  await expect(targets.getByRole("button", { name: "All targets" })).toHaveAttribute("aria-pressed", "true");
  await expect(rows).toHaveCount(2);
  await page.goBack();
  await expect(actions.getByRole("button", { name: "Comments" })).toHaveAttribute("aria-pressed", "true");
  await expect(rows).toHaveCount(1);
  await page.goForward();
  await expect(actions.getByRole("button", { name: "Created" })).toHaveAttribute("aria-pressed", "true");
  await expect(rows).toHaveCount(2);

  // A shared link opens with the same filters for someone else who may see the project.
  const shared = `${activityPath}?action=created&target_type=issue`;
  const colleague = await createUser(request);
  expect((await request.post(`/api/v4/projects/${project.id}/members`, { headers: asToken(owner.token), data: { user_id: colleague.id, access_level: 30 } })).status()).toBe(201);
  const otherContext = await browser.newContext();
  try {
    const other = await otherContext.newPage();
    await signIn(other, colleague.username, colleague.password);
    await other.goto(shared);
    await expect(other.getByRole("group", { name: "Target type" }).getByRole("button", { name: "Issues" })).toHaveAttribute("aria-pressed", "true");
    await expect(other.getByRole("list", { name: "Activity" }).getByRole("listitem")).toHaveCount(1);
    // The colleague's profile lists the project they are a member of.
    await other.goto(`/${colleague.username}`);
    await expect(other.getByRole("region", { name: "Projects" }).locator(`a[href="/${project.path_with_namespace}"]`)).toBeVisible();
  } finally {
    await otherContext.close();
  }
});

test("new events: another user's action shows a “new events” button that loads them on top without reloading", async ({ page, request }) => {
  const owner = await createUser(request);
  const member = await createUser(request);
  const project = await createProject(request, owner.token);
  expect((await request.post(`/api/v4/projects/${project.id}/members`, { headers: asToken(owner.token), data: { user_id: member.id, access_level: 30 } })).status()).toBe(201);
  await signIn(page, owner.username, owner.password);
  await page.goto("/dashboard/activity?scope=all");
  const rows = page.getByRole("list", { name: "Activity" }).getByRole("listitem");
  await expect(rows).toHaveCount(2);
  await expect(page.getByRole("group", { name: "Scope" }).getByRole("button", { name: "All projects" })).toHaveAttribute("aria-pressed", "true");
  await page.evaluate(() => Object.assign(window, { sameDocument: true }));

  // Nothing new: the poll's If-None-Match gets 304.
  const unchanged = page.waitForResponse((response) => response.url().includes("/api/v4/events?") && response.request().headers()["if-none-match"] !== undefined);
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  expect((await unchanged).status()).toBe(304);
  await expect(page.getByRole("button", { name: /new events?$/ })).toHaveCount(0);

  for (const title of ["Reported by a member", "Another from the member"]) {
    expect((await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(member.token), data: { title } })).status()).toBe(201);
  }
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await page.getByRole("button", { name: "2 new events" }).click();
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText(`opened issue #2 Another from the member at ${project.path_with_namespace}`);
  await expect(rows.nth(1)).toContainText("opened issue #1 Reported by a member");
  await expect(page.getByRole("button", { name: /new events?$/ })).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
  await expect(page).toHaveURL(/\/dashboard\/activity\?scope=all$/);
});
