import { expect, test } from "@playwright/test";
import { asToken, createProject, createToken, createUser, expectJson, rootToken } from "../support/api";
import { signIn } from "../support/oauth";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

/**
 * GitLab's Sudo: an administrator's token with the `sudo` scope acts as the user its `sudo` parameter (query string or
 * body) or `Sudo` header names, by id or username, with that user's rights alone.
 */
test.describe("Sudo", () => {
  test("acts as the user named by id or username, in the query string, the Sudo header or the body", async ({ request }) => {
    const admin = await createUser(request, { admin: true });
    const { token } = await createToken(request, admin.id, ["api", "sudo"]);
    const target = await createUser(request);
    const me = async (path: string, headers: Record<string, string> = {}) => {
      const response = await request.get(`/api/v4${path}`, { headers: { ...asToken(token), ...headers } });
      expect(response.status(), await response.text()).toBe(200);
      return ((await response.json()) as { username: string }).username;
    };
    expect(await me(`/user?sudo=${target.username}`)).toBe(target.username);
    expect(await me(`/user?sudo=${target.username.toUpperCase()}`)).toBe(target.username);
    expect(await me("/user", { Sudo: String(target.id) })).toBe(target.username);
    expect(await me("/user")).toBe(admin.username);

    // A write in the body names the user too: the project is theirs, created by them.
    const created = await request.post("/api/v4/projects", { headers: asToken(token), data: { name: "Made as someone", sudo: target.username } });
    expect(created.status(), await created.text()).toBe(201);
    expect(await created.json()).toMatchObject({ path_with_namespace: `${target.username}/made-as-someone`, creator_id: target.id });
  });

  test("the user's own rights apply: their private projects, not the admin's view; their name on what they do", async ({ request }) => {
    const admin = await createUser(request, { admin: true });
    const { token } = await createToken(request, admin.id, ["api", "sudo"]);
    const owner = await createUser(request);
    const stranger = await createUser(request);
    const project = await createProject(request, owner.token);
    const as = (user: { username: string }) => ({ ...asToken(token), Sudo: user.username });

    expect((await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(token) })).status()).toBe(200);
    await expectJson(await request.get(`/api/v4/projects/${project.id}`, { headers: as(stranger) }), 404, { message: "404 Project Not Found" });
    expect((await request.get(`/api/v4/projects/${project.id}`, { headers: as(owner) })).status()).toBe(200);

    const issue = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: as(owner), data: { title: "Filed by sudo" } });
    expect(issue.status(), await issue.text()).toBe(201);
    expect(((await issue.json()) as { author: { username: string } }).author.username).toBe(owner.username);
    const events = await request.get(`/api/v4/projects/${project.id}/events?action=created&target_type=issue`, { headers: asToken(owner.token) });
    expect(((await events.json()) as { author_username: string }[]).map((event) => event.author_username)).toEqual([owner.username]);
  });

  test("is refused as GitLab refuses it: nobody signed in, not an admin, no sudo scope, nobody of that name", async ({ request }) => {
    const admin = await createUser(request, { admin: true });
    const person = await createUser(request);
    const personWithSudo = await createToken(request, person.id, ["api", "sudo"]);
    const adminWithoutSudo = await createToken(request, admin.id, ["api"]);
    const adminWithSudo = await createToken(request, admin.id, ["read_user", "sudo"]);

    await expectJson(await request.get(`/api/v4/user?sudo=${person.username}`), 401, { message: "401 Unauthorized" });
    await expectJson(await request.get(`/api/v4/projects?sudo=${person.username}`), 401, { message: "401 Unauthorized" });
    await expectJson(await request.get(`/api/v4/user?sudo=${admin.username}`, { headers: asToken(personWithSudo.token) }), 403, {
      message: "403 Forbidden - Must be admin to use sudo",
    });
    await expectJson(await request.get(`/api/v4/user?sudo=${person.username}`, { headers: asToken(adminWithoutSudo.token) }), 403, {
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "sudo",
    });
    await expectJson(await request.get("/api/v4/user?sudo=nobody-by-that-name", { headers: asToken(adminWithSudo.token) }), 404, {
      message: "404 User with ID or username 'nobody-by-that-name' Not Found",
    });
    await expectJson(await request.get("/api/v4/user", { headers: { ...asToken(adminWithSudo.token), Sudo: "2147483647" } }), 404, {
      message: "404 User with ID or username '2147483647' Not Found",
    });
  });

  test("a browser session cannot sudo, an administrator's no more than anyone's", async ({ playwright, baseURL }) => {
    const api = await playwright.request.newContext({ baseURL });
    try {
      const admin = await createUser(api, { admin: true });
      const person = await createUser(api);
      await signIn(api, admin.username, admin.password);
      expect(((await (await api.get("/api/v4/user")).json()) as { username: string }).username).toBe(admin.username);
      await expectJson(await api.get(`/api/v4/user?sudo=${person.username}`), 403, {
        message: "403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo",
      });
    } finally {
      await api.dispose();
    }
  });

  test("python-gitlab's sudo keyword lists projects as the user it names", async ({ request, baseURL }) => {
    requirePythonGitlab();
    const target = await createUser(request);
    const project = await createProject(request, target.token);
    const out = runPythonGitlab(
      `
mine = gl.projects.list(owned=True, sudo=args["username"], get_all=True)
out["owned"] = [p.path_with_namespace for p in mine]
out["user"] = gl.http_get("/user", sudo=args["username"])["username"]
try:
    gl.projects.list(sudo="nobody-by-that-name")
except gitlab.exceptions.GitlabListError as error:
    out["missing"] = [error.response_code, error.error_message]
`,
      { baseURL: baseURL!, token: rootToken, args: { username: target.username } },
    );
    expect(out).toEqual({
      owned: [project.path_with_namespace],
      user: target.username,
      missing: [404, "404 User with ID or username 'nobody-by-that-name' Not Found"],
    });
  });
});
