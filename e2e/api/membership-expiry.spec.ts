import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, utcDay } from "../support/api";
import { GitSandbox, remoteUrl } from "../support/git";

const projectNotFound = { message: "404 Project Not Found" };

async function actionsIn(request: APIRequestContext, path: string, token: string): Promise<string[]> {
  const response = await request.get(path, { headers: asToken(token) });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { action_name: string; project_id: number }[]).map((event) => `${event.project_id}:${event.action_name}`);
}

test.describe("membership expiry", () => {
  let git: GitSandbox;
  test.beforeEach(() => {
    git = new GitSandbox();
  });
  test.afterEach(() => {
    git.dispose();
  });

  test("a membership that expires today grants nothing: API, git and events treat the user as a stranger", async ({ request, baseURL }) => {
    const [owner, current, lapsed] = await Promise.all([createUser(request), createUser(request), createUser(request)]);
    const project = await createProject(request, owner.token, { visibility: "private" });
    await addMember(request, owner.token, project.id, current.id, 30, { expires_at: utcDay(1) });
    // GitLab accepts today as an end date: the membership ends at once.
    await addMember(request, owner.token, project.id, lapsed.id, 30, { expires_at: utcDay() });
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    await git.commit(work, "README.md", "private\n", "Private start");
    await git.ok(["push", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), "main"], work);

    // Until its last day a membership works.
    expect((await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(current.token) })).status()).toBe(200);
    await git.ok(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: current.token }), git.dir("current")]);
    expect(await actionsIn(request, "/api/v4/events?scope=all", current.token)).toContain(`${project.id}:pushed new`);

    const headers = asToken(lapsed.token);
    await expectJson(await request.get(`/api/v4/projects/${project.id}`, { headers }), 404, projectNotFound);
    await expectJson(await request.get(`/api/v4/projects/${project.id}/events`, { headers }), 404, projectNotFound);
    await expectJson(await request.post(`/api/v4/projects/${project.id}/issues`, { headers, data: { title: "after" } }), 404, projectNotFound);
    expect(await (await request.get("/api/v4/projects?membership=true", { headers })).json()).toEqual([]);
    expect(await actionsIn(request, "/api/v4/events?scope=all", lapsed.token)).toEqual([]);
    // Their own past events in the project are hidden from them with it, as from any stranger.
    expect(await actionsIn(request, "/api/v4/events", lapsed.token)).toEqual([]);
    expect(await actionsIn(request, `/api/v4/users/${owner.id}/events`, lapsed.token)).toEqual([]);
    const clone = await git.run(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: lapsed.token }), git.dir("lapsed")]);
    expect(clone.code).not.toBe(0);
    expect(clone.stderr).toMatch(/not found/i);
    const upload = await request.get(`/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${lapsed.token}`).toString("base64")}` },
    });
    expect(upload.status()).toBe(404);

    // Until the scheduled job removes it, the members list shows the membership with its end date, as GitLab's does.
    const listed = await request.get(`/api/v4/projects/${project.id}/members`, { headers: asToken(owner.token) });
    expect(((await listed.json()) as { id: number; expires_at: string | null }[]).map((row) => [row.id, row.expires_at])).toEqual([
      [owner.id, null],
      [current.id, utcDay(1)],
      [lapsed.id, utcDay()],
    ]);

    // PUT sets the end date too: ending one membership today and renewing the other swaps their access.
    const ended = await request.put(`/api/v4/projects/${project.id}/members/${current.id}`, {
      headers: asToken(owner.token),
      data: { access_level: 30, expires_at: utcDay() },
    });
    await expectJson(ended, 200, expect.objectContaining({ id: current.id, access_level: 30, expires_at: utcDay() }));
    await expectJson(await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(current.token) }), 404, projectNotFound);
    const renewed = await request.put(`/api/v4/projects/${project.id}/members/${lapsed.id}`, {
      headers: asToken(owner.token),
      data: { access_level: 20, expires_at: utcDay(7) },
    });
    await expectJson(renewed, 200, expect.objectContaining({ id: lapsed.id, access_level: 20, expires_at: utcDay(7) }));
    expect((await request.get(`/api/v4/projects/${project.id}`, { headers })).status()).toBe(200);
  });

  test("in a public project an expired Developer is a visitor: 403 where a role is needed", async ({ request }) => {
    const owner = await createUser(request);
    const member = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    await addMember(request, owner.token, project.id, member.id, 30, { expires_at: utcDay() });
    const headers = asToken(member.token);
    await expectJson(await request.post(`/api/v4/projects/${project.id}/issues`, { headers, data: { title: "x" } }), 403, { message: "403 Forbidden" });
    await expectJson(await request.get(`/api/v4/projects/${project.id}/alert_management/alerts`, { headers }), 403, { message: "403 Forbidden" });
    expect(await actionsIn(request, "/api/v4/events?scope=all", member.token)).toEqual([]);
  });

  test("end dates in the past are refused; the last Owner cannot be given one", async ({ request }) => {
    const owner = await createUser(request);
    const member = await createUser(request);
    const project = await createProject(request, owner.token);
    const pastDate = { message: { expires_at: ["cannot be a date in the past"] } };
    const members = `/api/v4/projects/${project.id}/members`;
    await expectJson(
      await request.post(members, { headers: asToken(owner.token), data: { user_id: member.id, access_level: 30, expires_at: utcDay(-1) } }),
      400,
      pastDate,
    );
    await addMember(request, owner.token, project.id, member.id, 30);
    await expectJson(
      await request.put(`${members}/${member.id}`, { headers: asToken(owner.token), data: { access_level: 30, expires_at: utcDay(-1) } }),
      400,
      pastDate,
    );
    await expectJson(await request.put(`${members}/${member.id}`, { headers: asToken(owner.token), data: { access_level: 30, expires_at: "soon" } }), 400, {
      error: "expires_at is invalid",
    });
    await expectJson(
      await request.put(`${members}/${owner.id}`, { headers: asToken(owner.token), data: { access_level: 50, expires_at: utcDay(3) } }),
      403,
      { message: "403 Forbidden - a project's last Owner cannot be removed or demoted" },
    );
    // An empty value clears an end date.
    await request.put(`${members}/${member.id}`, { headers: asToken(owner.token), data: { access_level: 30, expires_at: utcDay(3) } });
    const cleared = await request.put(`${members}/${member.id}?expires_at=`, { headers: asToken(owner.token), data: { access_level: 30 } });
    await expectJson(cleared, 200, expect.objectContaining({ id: member.id, expires_at: null }));
  });
});
