import { expect, test, type Browser } from "@playwright/test";
import { addMember, asToken, createProject, createUser, uniqueName } from "../support/api";
import { signIn } from "../support/browser";

test("a Reporter posts an internal note from the issue page; only Reporters and above see it, on the page and in the activity feed", async ({ page, request, browser, baseURL }) => {
  const [owner, reporter, guest] = await Promise.all([createUser(request), createUser(request), createUser(request)]);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, reporter.id, 20);
  await addMember(request, owner.token, project.id, guest.id, 10);
  const created = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Outage" } });
  expect(created.status()).toBe(201);
  const issuePath = `/${project.path_with_namespace}/-/issues/1`;
  const secret = uniqueName("internal");

  await signIn(page, reporter.username, reporter.password);
  await page.goto(issuePath);
  await page.getByRole("textbox", { name: "Comment" }).fill("Public remark");
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.locator(".comment-body")).toHaveText(["Public remark"]);
  await page.getByRole("textbox", { name: "Comment" }).fill(secret);
  await page.getByLabel("Make this an internal note").check();
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.locator(".comment-body")).toHaveText(["Public remark", secret]);
  const comments = page.getByRole("article");
  await expect(comments.nth(0)).not.toContainText("Internal note");
  await expect(comments.nth(1)).toContainText("Internal note");
  await expect(page.getByRole("heading", { name: "Comments (2)" })).toBeVisible();

  // Stored as internal, and so is its event.
  const ownerView = await request.get(`/api/v4/projects/${project.id}/events?action=commented&sort=asc`, { headers: asToken(owner.token) });
  expect(((await ownerView.json()) as { note: { body: string; internal: boolean } }[]).map((event) => event.note)).toMatchObject([
    { body: "Public remark", internal: false },
    { body: secret, internal: true },
  ]);

  async function visit(browserToUse: Browser, user: { username: string; password: string } | null) {
    const context = await browserToUse.newContext({ baseURL });
    const visitor = await context.newPage();
    if (user) await signIn(visitor, user.username, user.password);
    await visitor.goto(issuePath);
    const bodies = await visitor.locator(".comment-body").allTextContents();
    const heading = await visitor.getByRole("heading", { name: /^Comments/ }).textContent();
    const offered = await visitor.getByLabel("Make this an internal note").count();
    await visitor.goto(`/${project.path_with_namespace}/activity`);
    const feed = visitor.getByRole("list", { name: "Activity" });
    await expect(feed).toContainText("commented on issue #1 Outage");
    const feedText = await feed.textContent();
    await context.close();
    return { bodies, heading, offered, feedShowsSecret: feedText?.includes(secret) ?? false };
  }

  for (const [who, user] of [
    ["anonymous", null],
    ["Guest", guest],
  ] as const) {
    expect(await visit(browser, user), who).toEqual({ bodies: ["Public remark"], heading: "Comments (1)", offered: 0, feedShowsSecret: false });
  }
  expect(await visit(browser, owner)).toEqual({ bodies: ["Public remark", secret], heading: "Comments (2)", offered: 1, feedShowsSecret: true });
});
