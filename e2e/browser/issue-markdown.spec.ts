import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { signIn } from "../support/browser";

const description = [
  "## Steps",
  "**Bold** first line",
  "second line",
  "",
  "- [x] reproduced",
  "- [ ] fixed",
  "",
  "[docs](https://example.com/docs) [bad](javascript:alert(1))",
  "",
  "<img src=x onerror=alert(1)> <script>alert(2)</script>",
].join("\n");

test("issue descriptions and comments are rendered as Markdown, with nothing of an author's HTML running", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const created = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Rendered", description } });
  expect(created.status()).toBe(201);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  const body = page.locator(".issue-description");
  await expect(body.getByRole("heading", { name: "Steps", level: 4 })).toBeVisible();
  await expect(body.locator("strong")).toHaveText("Bold");
  expect(await body.locator("p").first().innerHTML()).toBe("<strong>Bold</strong> first line<br>second line");
  await expect(body.getByRole("checkbox", { name: "Completed task" })).toBeChecked();
  await expect(body.getByRole("checkbox", { name: "Completed task" })).toBeDisabled();
  await expect(body.getByRole("checkbox", { name: "Incomplete task" })).not.toBeChecked();
  const docs = body.getByRole("link", { name: "docs" });
  await expect(docs).toHaveAttribute("href", "https://example.com/docs");
  await expect(docs).toHaveAttribute("rel", "nofollow noreferrer noopener");
  await expect(body.getByText("bad", { exact: true })).not.toHaveAttribute("href");
  await expect(body.locator("img")).toHaveCount(1);
  expect(await body.locator("img").evaluate((image) => image.getAttributeNames().sort())).toEqual(["alt", "src"]);
  await expect(page.locator("script", { hasText: "alert(2)" })).toHaveCount(0);

  await page.getByRole("textbox", { name: "Comment" }).fill("_noted_ <a href=\"javascript:alert(3)\" onmouseover=\"alert(4)\">hover</a>\nnext");
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  const comment = page.locator(".comment-body");
  await expect(comment.locator("em")).toHaveText("noted");
  await comment.getByText("hover").hover();
  expect(await comment.innerHTML()).toBe('<p><em>noted</em> <a rel="nofollow noreferrer noopener">hover</a><br>next</p>');

  // The stored text is what the author wrote: only the page renders it.
  const notes = await request.get(`/api/v4/projects/${project.id}/issues/1/notes`, { headers: asToken(owner.token) });
  expect(((await notes.json()) as { body: string }[]).map((note) => note.body)).toEqual(['_noted_ <a href="javascript:alert(3)" onmouseover="alert(4)">hover</a>\nnext']);
  await page.reload();
  await expect(comment.locator("em")).toHaveText("noted");
  expect(dialogs).toEqual([]);
});

test("closing and reopening an issue, on the page or through the API, writes system notes shown apart from comments", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Lifecycle" } });
  await request.post(`/api/v4/projects/${project.id}/issues/1/notes`, { headers: asToken(owner.token), data: { body: "A comment" } });

  const name = `User ${owner.username}`;
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  await page.getByRole("button", { name: "Close issue" }).click();
  await expect(page.getByTestId("issue-state")).toHaveText("Closed");
  await expect(page.locator(".system-note")).toHaveText([`${name} closed ${await todayText(page)}`]);

  const reopened = await request.put(`/api/v4/projects/${project.id}/issues/1`, { headers: asToken(owner.token), data: { state_event: "reopen" } });
  expect(reopened.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("issue-state")).toHaveText("Open");
  await expect(page.locator(".system-note")).toHaveText([new RegExp(`^${name} closed `), new RegExp(`^${name} reopened `)]);
  await expect(page.locator(".comment-body")).toHaveText(["A comment"]);
  await expect(page.getByRole("heading", { name: "Comments (1)" })).toBeVisible();

  const notes = await request.get(`/api/v4/projects/${project.id}/issues/1/notes?sort=asc`, { headers: asToken(owner.token) });
  expect(await notes.json()).toMatchObject([
    { body: "A comment", system: false, author: { username: owner.username } },
    { body: "closed", system: true, author: { username: owner.username } },
    { body: "reopened", system: true, author: { username: owner.username } },
  ]);
  const issue = await request.get(`/api/v4/projects/${project.id}/issues/1`, { headers: asToken(owner.token) });
  expect(await issue.json()).toMatchObject({ state: "opened", user_notes_count: 1 });
});

async function todayText(page: import("@playwright/test").Page): Promise<string> {
  return page.evaluate(() => new Date().toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }));
}

test("the comment form takes GitLab's longest comment, a million characters, and refuses a longer one", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  expect((await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Long comments" } })).status()).toBe(201);
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);

  const comment = page.getByRole("textbox", { name: "Comment" });
  await comment.fill("é".repeat(1_000_001));
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.getByText("Comment is too long (maximum is 1000000 characters).")).toBeVisible();

  // Two bytes each in UTF-8: more than the framework's default limit on a form's body.
  await comment.fill("é".repeat(1_000_000));
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.locator(".comment-body")).toHaveCount(1);
  const notes = await request.get(`/api/v4/projects/${project.id}/issues/1/notes`, { headers: asToken(owner.token) });
  expect(((await notes.json()) as { body: string }[]).map((note) => note.body)).toEqual(["é".repeat(1_000_000)]);
});

test("a title of one unbroken word, as long as a title may be, wraps in the issue list and on the issue's page instead of widening them", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const title = "x".repeat(255);
  const created = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title } });
  expect(created.status()).toBe(201);
  const pageOverflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/${project.path_with_namespace}/-/issues`);
  const link = page.getByRole("link", { name: `#1 ${title}` });
  await expect(link).toBeVisible();
  expect(await pageOverflow()).toBe(0);
  // The other columns keep their words whole beside it.
  await expect(page.locator("td.issue-state")).toHaveText("open");
  const linesOfState = await page.locator("td.issue-state").evaluate((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return range.getClientRects().length;
  });
  expect(linesOfState).toBe(1);

  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  expect(await pageOverflow()).toBe(0);
});
