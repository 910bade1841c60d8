import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createToken, createUser, expectJson, rootToken, type CreatedUser } from "../support/api";
import { asBearer, passwordToken, signIn } from "../support/oauth";

/** Waits until the background deletion of `userId` has removed the account. */
async function deleted(request: APIRequestContext, userId: number): Promise<void> {
  await expect.poll(async () => (await request.get(`/api/v4/users/${userId}`, { headers: asToken(rootToken) })).status(), { timeout: 30_000 }).toBe(404);
}

/** Someone who wrote in another person's project: an issue of their own and a comment on the owner's. */
async function contributor(request: APIRequestContext) {
  const owner = await createUser(request);
  const user = await createUser(request);
  const shared = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, shared.id, user.id, 30);
  const post = async (path: string, data: Record<string, unknown>, token: string) => {
    const response = await request.post(`/api/v4/projects/${shared.id}${path}`, { headers: asToken(token), data });
    expect(response.status(), await response.text()).toBe(201);
    return (await response.json()) as { id: number; iid: number };
  };
  const issue = await post("/issues", { title: "Their issue" }, user.token);
  const ownersIssue = await post("/issues", { title: "Owner's issue" }, owner.token);
  const note = await post(`/issues/${ownersIssue.iid}/notes`, { body: "Their comment" }, user.token);
  const personal = await createProject(request, user.token);
  return { owner, user, shared, issue, ownersIssue, note, personal };
}

test.describe("DELETE /users/:id", () => {
  test("answers 204 and deletes in the background: the ghost user keeps the issues and comments; projects and events go", async ({ request }) => {
    const c = await contributor(request);
    const answer = await request.delete(`/api/v4/users/${c.user.id}`, { headers: asToken(rootToken) });
    expect([answer.status(), await answer.text()]).toEqual([204, ""]);
    await deleted(request, c.user.id);

    const issue = await request.get(`/api/v4/projects/${c.shared.id}/issues/${c.issue.iid}`, { headers: asToken(c.owner.token) });
    expect(issue.status()).toBe(200);
    const { author } = (await issue.json()) as { author: { id: number; username: string; name: string } };
    expect(author).toMatchObject({ username: expect.stringMatching(/^ghost\d*$/), name: "Ghost User" });
    const note = await request.get(`/api/v4/projects/${c.shared.id}/issues/${c.ownersIssue.iid}/notes/${c.note.id}`, { headers: asToken(c.owner.token) });
    expect(((await note.json()) as { author: { id: number } }).author.id).toBe(author.id);
    await expectJson(await request.get(`/api/v4/projects/${c.personal.id}`, { headers: asToken(rootToken) }), 404, { message: "404 Project Not Found" });
    await expectJson(await request.get(`/api/v4/users/${c.user.id}/events`, { headers: asToken(rootToken) }), 404, { message: "404 User Not Found" });

    // The ghost user is GitLab's internal user: never deleted, whoever asks.
    expect((await request.delete(`/api/v4/users/${author.id}`, { headers: asToken(rootToken) })).status()).toBe(204);
    const ghost = await request.get(`/api/v4/users/${author.id}`, { headers: asToken(rootToken) });
    expect([ghost.status(), ((await ghost.json()) as { state: string; bot: boolean }).bot]).toEqual([200, false]);
  });

  test("with hard_delete, what the user wrote goes too", async ({ request }) => {
    const c = await contributor(request);
    expect((await request.delete(`/api/v4/users/${c.user.id}?hard_delete=true`, { headers: asToken(rootToken) })).status()).toBe(204);
    await deleted(request, c.user.id);
    await expectJson(await request.get(`/api/v4/projects/${c.shared.id}/issues/${c.issue.iid}`, { headers: asToken(c.owner.token) }), 404, {
      message: "404 Issue Not Found",
    });
    await expectJson(await request.get(`/api/v4/projects/${c.shared.id}/issues/${c.ownersIssue.iid}/notes/${c.note.id}`, { headers: asToken(c.owner.token) }), 404, {
      message: "404 Note Not Found",
    });
    expect((await request.get(`/api/v4/projects/${c.shared.id}/issues/${c.ownersIssue.iid}`, { headers: asToken(c.owner.token) })).status()).toBe(200);
  });

  test("the account's tokens, OAuth tokens and browser sessions stop working with the answer", async ({ request, playwright, baseURL }) => {
    const user = await createUser(request);
    const oauth = await passwordToken(request, user);
    const browser = await playwright.request.newContext({ baseURL });
    try {
      await signIn(browser, user.username, user.password);
      for (const headers of [asToken(user.token), asBearer(oauth.access_token)]) expect((await request.get("/api/v4/user", { headers })).status()).toBe(200);
      expect((await browser.get("/api/v4/user")).status()).toBe(200);

      expect((await request.delete(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) })).status()).toBe(204);
      // Blocked at once (403), or already deleted (401): never served again.
      for (const headers of [asToken(user.token), asBearer(oauth.access_token)]) expect([401, 403]).toContain((await request.get("/api/v4/user", { headers })).status());
      await expectJson(await browser.get("/api/v4/user"), 401, { message: "401 Unauthorized" });

      await deleted(request, user.id);
      for (const headers of [asToken(user.token), asBearer(oauth.access_token)]) {
        await expectJson(await request.get("/api/v4/user", { headers }), 401, { message: "401 Unauthorized" });
      }
    } finally {
      await browser.dispose();
    }
  });

  test("is for admins with a write token; an admin may delete their own account; missing users are 404", async ({ request }) => {
    const target: CreatedUser = await createUser(request);
    const admin = await createUser(request, { admin: true });
    const readOnly = await createToken(request, admin.id, ["read_api"]);
    await expectJson(await request.delete(`/api/v4/users/${target.id}`), 401, { message: "401 Unauthorized" });
    await expectJson(await request.delete(`/api/v4/users/${target.id}`, { headers: asToken(target.token) }), 403, { message: "403 Forbidden" });
    await expectJson(await request.delete(`/api/v4/users/${target.id}`, { headers: asToken(readOnly.token) }), 403, {
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "api",
    });
    await expectJson(await request.delete("/api/v4/users/2147483647", { headers: asToken(rootToken) }), 404, { message: "404 User Not Found" });
    await expectJson(await request.delete("/api/v4/users/abc", { headers: asToken(rootToken) }), 400, { error: "id is invalid" });
    await expectJson(await request.delete(`/api/v4/users/${target.id}?hard_delete=maybe`, { headers: asToken(rootToken) }), 400, { error: "hard_delete is invalid" });
    expect((await request.get(`/api/v4/users/${target.id}`, { headers: asToken(rootToken) })).status()).toBe(200);

    expect((await request.delete(`/api/v4/users/${admin.id}`, { headers: asToken(admin.token) })).status()).toBe(204);
    await deleted(request, admin.id);
  });
});
