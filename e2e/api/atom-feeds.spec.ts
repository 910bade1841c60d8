import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser, uniqueName, type CreatedUser } from "../support/api";
import { signIn } from "../support/browser";
import { readFeed, resetFeedToken, withToken } from "../support/feeds";

test.describe("Atom feeds", () => {
  let owner: CreatedUser;
  let publicPath: string;
  let privatePath: string;
  const oddTitle = `Tom's <b>"bold"</b> & more ${uniqueName("t")}`;
  const secretIssue = uniqueName("Secret plan");
  const internalNote = uniqueName("internal-only");

  test.beforeAll(async ({ request }) => {
    owner = await createUser(request);
    const publicProject = await createProject(request, owner.token, { visibility: "public" });
    const privateProject = await createProject(request, owner.token);
    publicPath = publicProject.path_with_namespace;
    privatePath = privateProject.path_with_namespace;
    const issue = await request.post(`/api/v4/projects/${publicProject.id}/issues`, { headers: asToken(owner.token), data: { title: oddTitle } });
    expect(issue.status()).toBe(201);
    const note = await request.post(`/api/v4/projects/${publicProject.id}/issues/1/notes`, {
      headers: asToken(owner.token),
      data: { body: internalNote, internal: true },
    });
    expect(note.status()).toBe(201);
    const secret = await request.post(`/api/v4/projects/${privateProject.id}/issues`, { headers: asToken(owner.token), data: { title: secretIssue } });
    expect(secret.status()).toBe(201);
  });

  test("a user's feed shows anybody the public activity, and its owner everything, with GitLab's titles", async ({ page, request, baseURL }) => {
    const anonymous = await readFeed(request, page, `/${owner.username}.atom`);
    expect(anonymous.feed).toMatchObject({ id: `${baseURL}/${owner.username}.atom`, title: `User ${owner.username} activity`, self: `${baseURL}/${owner.username}.atom` });
    const titles = anonymous.feed.entries.map((entry) => entry.title);
    expect(titles).toEqual([`User ${owner.username} opened issue #1 ${oddTitle} at ${publicPath}`, `User ${owner.username} created project ${publicPath}`]);
    expect(anonymous.feed.entries[0]).toMatchObject({
      link: `${baseURL}/${publicPath}/-/issues/1`,
      author: `User ${owner.username}`,
      updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      id: expect.stringMatching(/^tag:[^,]+,2005:events\/\d+$/),
    });
    expect(anonymous.feed.updated).toBe(anonymous.feed.entries[0]!.updated);
    expect(anonymous.xml).not.toContain(secretIssue);
    expect(anonymous.xml).not.toContain(internalNote);
    expect(anonymous.xml).not.toContain(privatePath);

    // A token nobody holds reads as anonymous.
    const guessed = await readFeed(request, page, withToken(`/${owner.username}.atom`, "glft-guessed"));
    expect(guessed.feed.entries.map((entry) => entry.title)).toEqual(titles);

    await signIn(page, owner.username, owner.password);
    const { token, feedUrl } = await resetFeedToken(page);
    expect(token).toMatch(/^glft-[\w-]{43}$/);
    expect(feedUrl).toBe(`${baseURL}/dashboard/activity.atom?feed_token=${token}`);
    const own = await readFeed(request, page, withToken(`/${owner.username}.atom`, token));
    expect(own.feed.entries.map((entry) => entry.title)).toEqual([
      `User ${owner.username} opened issue #1 ${secretIssue} at ${privatePath}`,
      `User ${owner.username} commented on issue #1 ${oddTitle} at ${publicPath}`,
      titles[0],
      `User ${owner.username} created project ${privatePath}`,
      titles[1],
    ]);
    expect(own.feed.entries[1]!.summary).toBe(internalNote);
    // The token never appears in the feed it opened.
    expect(own.xml).not.toContain(token);
  });

  test("project and dashboard feeds need a reader who may see them; a reset token stops working", async ({ page, request, baseURL, browser }) => {
    const privateFeed = `/${privatePath}/activity.atom`;
    expect((await request.get(privateFeed)).status()).toBe(404);
    expect((await request.get(withToken(privateFeed, "glft-guessed"))).status()).toBe(404);
    expect((await request.get("/dashboard/activity.atom")).status()).toBe(401);
    expect((await request.get(`/${uniqueName("nobody")}.atom`)).status()).toBe(404);
    expect((await request.get(`/${owner.username}/${uniqueName("missing")}/activity.atom`)).status()).toBe(404);

    const publicFeed = await readFeed(request, page, `/${publicPath}/activity.atom`);
    expect(publicFeed.feed.self).toBe(`${baseURL}/${publicPath}/activity.atom`);
    expect(publicFeed.feed.entries.map((entry) => entry.title)).toEqual([
      `User ${owner.username} opened issue #1 ${oddTitle} at ${publicPath}`,
      `User ${owner.username} created project ${publicPath}`,
    ]);

    // Someone who is no member gets nothing of the private project, with their own valid token.
    const outsider = await createUser(request);
    const outsiderContext = await browser.newContext();
    try {
      const outsiderPage = await outsiderContext.newPage();
      await signIn(outsiderPage, outsider.username, outsider.password);
      const { token: outsiderToken } = await resetFeedToken(outsiderPage);
      expect((await request.get(withToken(privateFeed, outsiderToken))).status()).toBe(404);
    } finally {
      await outsiderContext.close();
    }

    await signIn(page, owner.username, owner.password);
    const { token: first } = await resetFeedToken(page);
    const memberView = await readFeed(request, page, withToken(privateFeed, first));
    expect(memberView.feed.entries.map((entry) => entry.title)).toEqual([
      `User ${owner.username} opened issue #1 ${secretIssue} at ${privatePath}`,
      `User ${owner.username} created project ${privatePath}`,
    ]);
    const dashboard = await readFeed(request, page, withToken("/dashboard/activity.atom?action=commented", first));
    expect(dashboard.feed.entries.map((entry) => entry.title)).toEqual([`User ${owner.username} commented on issue #1 ${oddTitle} at ${publicPath}`]);

    const { token: second } = await resetFeedToken(page);
    expect(second).not.toBe(first);
    expect((await request.get(withToken(privateFeed, first))).status()).toBe(404);
    expect((await request.get(withToken("/dashboard/activity.atom", first))).status()).toBe(401);
    expect((await readFeed(request, page, withToken(privateFeed, second))).feed.entries).toHaveLength(2);
  });

  test("pages point feed readers at their feeds", async ({ page, request, baseURL }) => {
    await signIn(page, owner.username, owner.password);
    for (const [path, feedPath, label] of [
      ["/dashboard/activity", "/dashboard/activity.atom", "Subscribe to activity feed"],
      [`/${owner.username}`, `/${owner.username}.atom`, "Subscribe"],
      [`/${publicPath}/activity`, `/${publicPath}/activity.atom`, "Subscribe"],
    ] as const) {
      await page.goto(path);
      await expect(page.locator('head link[rel="alternate"][type="application/atom+xml"]')).toHaveAttribute("href", `${baseURL}${feedPath}`);
      const subscribe = page.getByRole("link", { name: label, exact: true });
      await expect(subscribe).toHaveAttribute("href", feedPath);
    }
    // The browser's session opens the dashboard feed without a token.
    const cookies = (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
    const viaSession = await request.get("/dashboard/activity.atom", { headers: { Cookie: cookies } });
    expect(viaSession.status()).toBe(200);
    expect(await viaSession.text()).toContain(secretIssue);
  });
});
