import { expect, test, type APIRequestContext } from "@playwright/test";
import { asToken, createProject, createUser, expectJson, rootToken, uniqueName, type CreatedUser } from "../support/api";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

/** Renames a project's path through the API; answers its new full path. */
async function renameProject(request: APIRequestContext, token: string, projectId: number, path: string): Promise<string> {
  const response = await request.put(`/api/v4/projects/${projectId}`, { headers: asToken(token), data: { path } });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { path_with_namespace: string }).path_with_namespace;
}

const encoded = (fullPath: string) => encodeURIComponent(fullPath);

test.describe("redirect routes after a rename", () => {
  test("the API answers a GET by the old path with GitLab's redirect to the project's id, and refuses other methods", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const oldPath = project.path_with_namespace;
    const newPath = await renameProject(request, owner.token, project.id, `${project.path}-renamed`);

    const redirected = await request.get(`/api/v4/projects/${encoded(oldPath)}/issues?state=opened`, { headers: asToken(owner.token), maxRedirects: 0 });
    const location = `${baseURL}/api/v4/projects/${project.id}/issues?state=opened`;
    expect([redirected.status(), redirected.headers().location, await redirected.text()]).toEqual([301, location, `This resource has been moved permanently to ${location}`]);

    const followed = await request.get(`/api/v4/projects/${encoded(oldPath.toUpperCase())}`, { headers: asToken(owner.token) });
    expect(followed.status()).toBe(200);
    expect(await followed.json()).toMatchObject({ id: project.id, path_with_namespace: newPath });

    await expectJson(await request.put(`/api/v4/projects/${encoded(oldPath)}`, { headers: asToken(owner.token), data: { description: "x" } }), 405, {
      message: "Non GET methods are not allowed for moved projects",
    });
    await expectJson(await request.post(`/api/v4/projects/${encoded(oldPath)}/issues`, { headers: asToken(owner.token), data: { title: "x" } }), 405, {
      message: "Non GET methods are not allowed for moved projects",
    });
  });

  test("only those who may see the project learn where it went; anonymous callers follow a public one", async ({ request }) => {
    const owner = await createUser(request);
    const stranger = await createUser(request);
    const hidden = await createProject(request, owner.token);
    const shown = await createProject(request, owner.token, { visibility: "public" });
    await renameProject(request, owner.token, hidden.id, `${hidden.path}-x`);
    await renameProject(request, owner.token, shown.id, `${shown.path}-x`);

    for (const headers of [{}, asToken(stranger.token)]) {
      await expectJson(await request.get(`/api/v4/projects/${encoded(hidden.path_with_namespace)}`, { headers, maxRedirects: 0 }), 404, { message: "404 Project Not Found" });
    }
    expect((await request.get(`/api/v4/projects/${encoded(hidden.path_with_namespace)}`, { headers: asToken(rootToken), maxRedirects: 0 })).status()).toBe(301);
    const anonymous = await request.get(`/api/v4/projects/${encoded(shown.path_with_namespace)}/events`, { maxRedirects: 0 });
    expect([anonymous.status(), anonymous.headers().location]).toEqual([301, expect.stringMatching(new RegExp(`/api/v4/projects/${shown.id}/events$`))]);
  });

  test("a new project at the old path takes it over", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    await renameProject(request, owner.token, project.id, `${project.path}-moved`);
    const successor = await createProject(request, owner.token, { path: project.path });
    const answer = await request.get(`/api/v4/projects/${encoded(project.path_with_namespace)}`, { headers: asToken(owner.token), maxRedirects: 0 });
    expect([answer.status(), ((await answer.json()) as { id: number }).id]).toEqual([200, successor.id]);
  });

  test("git clones, fetches and pushes by the old URL", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const git = new GitSandbox();
    let pushed: string;
    try {
      await pushMain(git, remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), 1);
      await renameProject(request, owner.token, project.id, `${project.path}-renamed`);

      const oldRemote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
      const clone = git.dir("clone");
      await git.ok(["clone", "--quiet", oldRemote, clone]);
      expect(await git.ok(["log", "--format=%s"], clone)).toBe("Commit 1");
      pushed = await git.commit(clone, "file.txt", "2\n", "Commit 2");
      await git.ok(["push", "--quiet", "origin", "main"], clone);
      await git.ok(["fetch", "--quiet", "origin"], clone);
      expect(await git.ok(["rev-parse", "origin/main"], clone)).toBe(pushed);
    } finally {
      git.dispose();
    }

    const events = await request.get(`/api/v4/projects/${project.id}/events?action=pushed&sort=asc`, { headers: asToken(owner.token) });
    expect(((await events.json()) as { push_data: { commit_to: string } }[]).map((event) => event.push_data.commit_to).at(-1)).toBe(pushed);
  });

  test("pages at the old path redirect to the same page at the new one", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const newPath = await renameProject(request, owner.token, project.id, `${project.path}-renamed`);
    for (const [from, to] of [
      ["", ""],
      ["/-/issues?state=closed", "/-/issues?state=closed"],
      ["/activity", "/activity"],
    ]) {
      const answer = await request.get(`/${project.path_with_namespace}${from}`, { maxRedirects: 0 });
      expect([answer.status(), answer.headers().location]).toEqual([308, `/${newPath}${to}`]);
    }
    const feed = await request.get(`/${project.path_with_namespace}/activity.atom`, { maxRedirects: 0 });
    expect([feed.status(), feed.headers().location]).toEqual([301, expect.stringMatching(new RegExp(`/${newPath}/activity\\.atom$`))]);
    expect((await request.get(`/${project.path_with_namespace}`)).status()).toBe(200);
  });

  test("a renamed user's projects and page keep their old addresses until someone takes the username", async ({ request }) => {
    const owner: CreatedUser = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const newUsername = uniqueName("renamed");
    const renamed = await request.put(`/api/v4/users/${owner.id}`, { headers: asToken(rootToken), data: { username: newUsername } });
    expect(renamed.status(), await renamed.text()).toBe(200);

    const api = await request.get(`/api/v4/projects/${encoded(project.path_with_namespace)}`, { maxRedirects: 0 });
    expect([api.status(), api.headers().location]).toEqual([301, expect.stringMatching(new RegExp(`/api/v4/projects/${project.id}$`))]);
    const page = await request.get(`/${owner.username}`, { maxRedirects: 0 });
    expect([page.status(), page.headers().location]).toEqual([308, `/${newUsername}`]);

    const taker = await request.post("/api/v4/users", {
      headers: asToken(rootToken),
      data: { username: owner.username, email: `${uniqueName("taker")}@example.com`, name: "Taker", password: "taker-password-123", skip_confirmation: true },
    });
    expect(taker.status(), await taker.text()).toBe(201);
    expect((await request.get(`/${owner.username}`, { maxRedirects: 0 })).status()).toBe(200);
    await expectJson(await request.get(`/api/v4/projects/${encoded(project.path_with_namespace)}`, { maxRedirects: 0 }), 404, { message: "404 Project Not Found" });
  });

  test("python-gitlab gets a project by its old path", async ({ request, baseURL }) => {
    requirePythonGitlab();
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const newPath = await renameProject(request, owner.token, project.id, `${project.path}-renamed`);
    const out = runPythonGitlab(
      `
project = gl.projects.get(args["old"])
out["found"] = [project.id, project.path_with_namespace]
`,
      { baseURL: baseURL!, token: owner.token, args: { old: project.path_with_namespace } },
    );
    expect(out).toEqual({ found: [project.id, newPath] });
  });
});
