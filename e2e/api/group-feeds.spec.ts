import { expect, test, type APIRequestContext } from "@playwright/test";
import { asToken, createProject, createUser, uniqueName, type CreatedUser } from "../support/api";
import { signIn } from "../support/browser";
import { readFeed, resetFeedToken, withToken } from "../support/feeds";

/** The route `/groups/<full path>.atom` is served by (the rewrite keeps the query, feed token included). */
const groupFeedRoute = (fullPath: string) => `/-/feeds/groups/${fullPath}`;

async function post(request: APIRequestContext, token: string, path: string, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await request.post(path, { headers: asToken(token), data });
  expect(response.status(), `${path}: ${await response.text()}`).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

test.describe("Group activity feeds", () => {
  let owner: CreatedUser;
  let member: CreatedUser;
  let topPath: string;
  let subPath: string;
  let sitePath: string;
  let corePath: string;
  const secretTitle = uniqueName("Core plan");

  test.beforeAll(async ({ request }) => {
    owner = await createUser(request);
    member = await createUser(request);
    topPath = uniqueName("acme");
    const top = await post(request, owner.token, "/api/v4/groups", { name: "Acme", path: topPath, visibility: "public" });
    const sub = await post(request, owner.token, "/api/v4/groups", { name: "Platform", path: "platform", parent_id: top.id });
    subPath = sub.full_path as string;
    const site = await createProject(request, owner.token, { path: "site", namespace_id: top.id, visibility: "public" });
    const core = await createProject(request, owner.token, { path: "core", namespace_id: sub.id });
    sitePath = site.path_with_namespace;
    corePath = core.path_with_namespace;
    await post(request, owner.token, `/api/v4/projects/${site.id}/issues`, { title: "Site issue" });
    await post(request, owner.token, `/api/v4/projects/${core.id}/issues`, { title: secretTitle });
    await post(request, owner.token, `/api/v4/groups/${sub.id}/members`, { user_id: member.id, access_level: 20 });
  });

  test("anybody reads a public group's public activity; its private subgroup is 404", async ({ page, request, baseURL }) => {
    const { feed, xml } = await readFeed(request, page, groupFeedRoute(topPath));
    expect(feed).toMatchObject({ id: `${baseURL}/groups/${topPath}.atom`, title: "Acme activity", self: `${baseURL}/groups/${topPath}.atom` });
    expect(feed.entries.map((entry) => entry.title)).toEqual([
      `User ${owner.username} opened issue #1 Site issue at ${sitePath}`,
      `User ${owner.username} created project ${sitePath}`,
      `User ${owner.username} created group Acme`,
    ]);
    expect(feed.entries[2]).toMatchObject({ link: `${baseURL}/groups/${topPath}`, author: `User ${owner.username}`, summary: null });
    expect(feed.updated).toBe(feed.entries[0]!.updated);
    expect(xml).not.toContain(secretTitle);
    expect(xml).not.toContain(corePath);
    expect(xml).not.toContain("Platform");

    // A token nobody holds reads as anonymous, as on the other feeds.
    const guessed = await readFeed(request, page, withToken(groupFeedRoute(topPath), "glft-guessed"));
    expect(guessed.feed.entries.map((entry) => entry.title)).toEqual(feed.entries.map((entry) => entry.title));
    for (const path of [groupFeedRoute(subPath), withToken(groupFeedRoute(subPath), "glft-guessed"), groupFeedRoute(uniqueName("nobody"))]) {
      const refused = await request.get(path);
      expect(refused.status(), path).toBe(404);
      expect(await refused.text()).toBe("404 Not Found\n");
    }
    // A user's namespace is no group.
    expect((await request.get(groupFeedRoute(owner.username))).status()).toBe(404);
  });

  test("a renamed group's old feed address leads to its feed, token kept; a private group's stays 404 to those who cannot see it", async ({ request, baseURL }) => {
    const renameTo = async (id: unknown, path: string) => {
      const renamed = await request.put(`/api/v4/groups/${id}`, { headers: asToken(owner.token), data: { path } });
      expect(renamed.status(), await renamed.text()).toBe(200);
    };
    const oldPath = uniqueName("moving");
    const group = await post(request, owner.token, "/api/v4/groups", { name: "Moving", path: oldPath, visibility: "public" });
    const newPath = uniqueName("moved");
    await renameTo(group.id, newPath);
    const moved = await request.get(`/groups/${oldPath}.atom?feed_token=glft-kept`, { maxRedirects: 0 });
    expect([moved.status(), moved.headers().location]).toEqual([301, `${baseURL}/groups/${newPath}.atom?feed_token=glft-kept`]);
    expect((await request.get(`/groups/${oldPath}.atom`)).status()).toBe(200);

    const hiddenPath = uniqueName("hidden");
    const hidden = await post(request, owner.token, "/api/v4/groups", { name: "Hidden", path: hiddenPath, visibility: "private" });
    await renameTo(hidden.id, uniqueName("still-hidden"));
    const refused = await request.get(`/groups/${hiddenPath}.atom`, { maxRedirects: 0 });
    expect([refused.status(), await refused.text()]).toEqual([404, "404 Not Found\n"]);
  });

  test("a member's feed token shows what their inherited role shows, group events and filters included", async ({ page, request }) => {
    await signIn(page, member.username, member.password);
    const { token } = await resetFeedToken(page);
    const whole = await readFeed(request, page, withToken(groupFeedRoute(topPath), token));
    expect(whole.feed.entries.map((entry) => entry.title)).toEqual([
      `User ${member.username} joined group Acme / Platform`,
      `User ${owner.username} opened issue #1 ${secretTitle} at ${corePath}`,
      `User ${owner.username} opened issue #1 Site issue at ${sitePath}`,
      `User ${owner.username} created project ${corePath}`,
      `User ${owner.username} created project ${sitePath}`,
      `User ${owner.username} created group Acme / Platform`,
      `User ${owner.username} created group Acme`,
    ]);
    expect(whole.xml).not.toContain(token);

    const sub = await readFeed(request, page, withToken(`${groupFeedRoute(subPath)}?action=joined`, token));
    expect(sub.feed.title).toBe("Acme / Platform activity");
    expect(sub.feed.entries.map((entry) => entry.title)).toEqual([`User ${member.username} joined group Acme / Platform`]);
    const issuesOnly = await readFeed(request, page, withToken(`${groupFeedRoute(topPath)}?target_type=issue`, token));
    expect(issuesOnly.feed.entries).toHaveLength(2);

    // The browser's session opens it too, without a token.
    const cookies = (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
    const viaSession = await request.get(groupFeedRoute(subPath), { headers: { Cookie: cookies } });
    expect(viaSession.status()).toBe(200);
    expect(await viaSession.text()).toContain(secretTitle);

    // Leaving the group ends it: the subgroup's feed is 404 with the same token, the top group's is the public one.
    const left = await request.delete(`/api/v4/groups/${encodeURIComponent(subPath)}/members/${member.id}`, { headers: asToken(member.token) });
    expect(left.status()).toBe(204);
    expect((await request.get(withToken(groupFeedRoute(subPath), token))).status()).toBe(404);
    const after = await readFeed(request, page, withToken(groupFeedRoute(topPath), token));
    expect(after.feed.entries.map((entry) => entry.title)).toEqual([
      `User ${owner.username} opened issue #1 Site issue at ${sitePath}`,
      `User ${owner.username} created project ${sitePath}`,
      `User ${owner.username} created group Acme`,
    ]);
  });
});
