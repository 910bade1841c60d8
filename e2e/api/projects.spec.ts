import { expect, test } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, isoTimestamp, rootToken, type CreatedUser } from "../support/api";
import { randomBytes } from "node:crypto";

function memberBody(baseURL: string | undefined, user: CreatedUser, accessLevel: number) {
  return {
    id: user.id,
    username: user.username,
    name: `User ${user.username}`,
    state: "active",
    avatar_url: `${baseURL}/-/avatars/${user.id}`,
    web_url: `${baseURL}/${user.username}`,
    access_level: accessLevel,
    created_at: isoTimestamp,
    expires_at: null,
  };
}

const forbidden = { message: "403 Forbidden" };

test.describe("projects", () => {
  test("POST /projects creates a private project in the caller's namespace, path derived from the name", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const suffix = randomBytes(3).toString("hex");
    const name = `My Project ${suffix}`;
    const response = await request.post("/api/v4/projects", { headers: asToken(owner.token), data: { name } });
    const created = (await response.json()) as { id: number; namespace: { id: number } };
    const path = `my-project-${suffix}`;
    const api = `${baseURL}/api/v4/projects/${created.id}`;
    const expected = {
      id: created.id,
      description: null,
      name,
      name_with_namespace: `User ${owner.username} / ${name}`,
      path,
      path_with_namespace: `${owner.username}/${path}`,
      created_at: isoTimestamp,
      // GitLab's `default_branch_or_main`: nothing was pushed yet, so the branch a first push would make.
      default_branch: "main",
      tag_list: [],
      topics: [],
      http_url_to_repo: `${baseURL}/${owner.username}/${path}.git`,
      web_url: `${baseURL}/${owner.username}/${path}`,
      forks_count: 0,
      avatar_url: null,
      star_count: 0,
      last_activity_at: isoTimestamp,
      namespace: {
        id: created.namespace.id,
        name: `User ${owner.username}`,
        path: owner.username,
        kind: "user",
        full_path: owner.username,
        parent_id: null,
        avatar_url: `${baseURL}/-/avatars/${owner.id}`,
        web_url: `${baseURL}/${owner.username}`,
      },
      _links: { self: api, issues: `${api}/issues`, labels: `${api}/labels`, events: `${api}/events`, members: `${api}/members` },
      empty_repo: true,
      archived: false,
      visibility: "private",
      issues_enabled: true,
      merge_requests_enabled: false,
      wiki_enabled: false,
      jobs_enabled: false,
      snippets_enabled: false,
      container_registry_enabled: false,
      issues_access_level: "enabled",
      repository_access_level: "enabled",
      merge_requests_access_level: "disabled",
      wiki_access_level: "disabled",
      builds_access_level: "disabled",
      snippets_access_level: "disabled",
      creator_id: owner.id,
      import_status: "none",
      open_issues_count: 0,
      updated_at: isoTimestamp,
      request_access_enabled: false,
    };
    await expectJson(response, 201, expected);

    // By id and by URL-encoded namespace/path (case-insensitive), the same project, with the caller's permissions.
    const withAccess = { ...expected, permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null } };
    const byId = await request.get(`/api/v4/projects/${created.id}`, { headers: asToken(owner.token) });
    await expectJson(byId, 200, withAccess);
    const byPath = await request.get(`/api/v4/projects/${encodeURIComponent(`${owner.username}/${path}`)}`, { headers: asToken(owner.token) });
    await expectJson(byPath, 200, withAccess);
    const byUpperPath = await request.get(`/api/v4/projects/${owner.username.toUpperCase()}%2F${path.toUpperCase()}`, {
      headers: asToken(owner.token),
    });
    expect(byUpperPath.status()).toBe(200);
    expect((await byUpperPath.json()).id).toBe(created.id);

    // The creator is the Owner.
    await expectJson(await request.get(`/api/v4/projects/${created.id}/members`, { headers: asToken(owner.token) }), 200, [
      memberBody(baseURL, owner, 50),
    ]);
  });

  test("accented names give plain paths", async ({ request }) => {
    const owner = await createUser(request);
    const suffix = randomBytes(3).toString("hex");
    const project = await createProject(request, owner.token, { name: `Crème Brûlée ${suffix}` });
    expect(project.path).toBe(`creme-brulee-${suffix}`);
  });

  test("an explicit path, visibility and description are kept; admins see every project", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { name: "Shown", path: "explicit-path", visibility: "internal", description: "About" });
    expect(project).toMatchObject({ path: "explicit-path", visibility: "internal", description: "About", name: "Shown" });
    const admin = await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(rootToken) });
    expect(admin.status()).toBe(200);
  });

  test("visibility decides who sees a project", async ({ request }) => {
    const owner = await createUser(request);
    const stranger = await createUser(request);
    const publicProject = await createProject(request, owner.token, { visibility: "public" });
    const internal = await createProject(request, owner.token, { visibility: "internal" });
    const notFound = { message: "404 Project Not Found" };
    expect((await request.get(`/api/v4/projects/${publicProject.id}`)).status()).toBe(200);
    expect((await request.get(`/api/v4/projects/${publicProject.id}/members`)).status()).toBe(200);
    await expectJson(await request.get(`/api/v4/projects/${internal.id}`), 404, notFound);
    expect((await request.get(`/api/v4/projects/${internal.id}`, { headers: asToken(stranger.token) })).status()).toBe(200);
  });

  test("a second project with the same path is 400 with GitLab's validation message", async ({ request }) => {
    const owner = await createUser(request);
    await createProject(request, owner.token, { path: "twice" });
    await expectJson(
      await request.post("/api/v4/projects", { headers: asToken(owner.token), data: { name: "Twice", path: "TWICE" } }),
      400,
      { message: { path: ["has already been taken"] } },
    );
  });
});

test.describe("project members", () => {
  test("add, list, get, update and remove", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const developer = await createUser(request);
    const project = await createProject(request, owner.token);
    const members = `/api/v4/projects/${project.id}/members`;

    await expectJson(
      await request.post(members, { headers: asToken(owner.token), data: { user_id: developer.id, access_level: 30 } }),
      201,
      memberBody(baseURL, developer, 30),
    );
    await expectJson(
      await request.post(members, { headers: asToken(owner.token), data: { user_id: developer.id, access_level: 20 } }),
      409,
      { message: "Member already exists" },
    );
    await expectJson(
      await request.post(members, { headers: asToken(owner.token), data: { user_id: 2147483647, access_level: 30 } }),
      404,
      { message: "404 User Not Found" },
    );
    await expectJson(await request.get(members, { headers: asToken(owner.token) }), 200, [
      memberBody(baseURL, owner, 50),
      memberBody(baseURL, developer, 30),
    ]);
    // Members can see the project now.
    expect((await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(developer.token) })).status()).toBe(200);
    await expectJson(
      await request.get(`${members}/${developer.id}`, { headers: asToken(developer.token) }),
      200,
      memberBody(baseURL, developer, 30),
    );
    await expectJson(
      await request.put(`${members}/${developer.id}`, { headers: asToken(owner.token), data: { access_level: 40 } }),
      200,
      memberBody(baseURL, developer, 40),
    );
    const removed = await request.delete(`${members}/${developer.id}`, { headers: asToken(owner.token) });
    expect(removed.status()).toBe(204);
    expect(await removed.text()).toBe("");
    await expectJson(await request.get(`${members}/${developer.id}`, { headers: asToken(owner.token) }), 404, {
      message: "404 Member Not Found",
    });
    await expectJson(await request.delete(`${members}/${developer.id}`, { headers: asToken(owner.token) }), 404, {
      message: "404 Member Not Found",
    });
    await expectJson(await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(developer.token) }), 404, {
      message: "404 Project Not Found",
    });
  });

  test("Maintainer or higher manages members; only Owners grant or change Owner", async ({ request }) => {
    const owner = await createUser(request);
    const maintainer = await createUser(request);
    const developer = await createUser(request);
    const newcomer = await createUser(request);
    const coOwner = await createUser(request);
    const project = await createProject(request, owner.token);
    const members = `/api/v4/projects/${project.id}/members`;
    await addMember(request, owner.token, project.id, maintainer.id, 40);
    await addMember(request, owner.token, project.id, developer.id, 30);

    // A Developer can do none of it.
    await expectJson(
      await request.post(members, { headers: asToken(developer.token), data: { user_id: newcomer.id, access_level: 10 } }),
      403,
      forbidden,
    );
    await expectJson(await request.put(`${members}/${maintainer.id}`, { headers: asToken(developer.token), data: { access_level: 10 } }), 403, forbidden);
    await expectJson(await request.delete(`${members}/${maintainer.id}`, { headers: asToken(developer.token) }), 403, forbidden);

    // A Maintainer manages roles below Owner, but not Owner.
    await expectJson(
      await request.post(members, { headers: asToken(maintainer.token), data: { user_id: newcomer.id, access_level: 50 } }),
      403,
      forbidden,
    );
    expect(
      (await request.post(members, { headers: asToken(maintainer.token), data: { user_id: newcomer.id, access_level: 20 } })).status(),
    ).toBe(201);
    await expectJson(await request.put(`${members}/${newcomer.id}`, { headers: asToken(maintainer.token), data: { access_level: 50 } }), 403, forbidden);

    // The Owner grants Owner; a Maintainer may then neither demote nor remove that Owner.
    await addMember(request, owner.token, project.id, coOwner.id, 50);
    await expectJson(await request.put(`${members}/${coOwner.id}`, { headers: asToken(maintainer.token), data: { access_level: 30 } }), 403, forbidden);
    await expectJson(await request.delete(`${members}/${coOwner.id}`, { headers: asToken(maintainer.token) }), 403, forbidden);
    expect((await request.delete(`${members}/${newcomer.id}`, { headers: asToken(maintainer.token) })).status()).toBe(204);

    // A Developer may leave on their own.
    expect((await request.delete(`${members}/${developer.id}`, { headers: asToken(developer.token) })).status()).toBe(204);
  });

  test("the last Owner can neither leave nor be demoted", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const members = `/api/v4/projects/${project.id}/members`;
    const lastOwner = { message: "403 Forbidden - a project's last Owner cannot be removed or demoted" };
    await expectJson(await request.put(`${members}/${owner.id}`, { headers: asToken(owner.token), data: { access_level: 40 } }), 403, lastOwner);
    await expectJson(await request.delete(`${members}/${owner.id}`, { headers: asToken(owner.token) }), 403, lastOwner);
    await expectJson(await request.delete(`${members}/${owner.id}`, { headers: asToken(rootToken) }), 403, lastOwner);
  });

  test("member parameters are validated", async ({ request }) => {
    const owner = await createUser(request);
    const other = await createUser(request);
    const project = await createProject(request, owner.token);
    const members = `/api/v4/projects/${project.id}/members`;
    const post = (data: unknown) => request.post(members, { headers: asToken(owner.token), data });
    await expectJson(await post({ user_id: "abc", access_level: 30 }), 400, { error: "user_id is invalid" });
    await expectJson(await post({ user_id: other.id, access_level: "x" }), 400, { error: "access_level is invalid" });
    await expectJson(await post({ user_id: other.id, access_level: 35 }), 400, { error: "access_level does not have a valid value" });
    await expectJson(await post({ access_level: 30 }), 400, { error: "user_id is missing" });
    await expectJson(await post({ user_id: other.id }), 400, { error: "access_level is missing" });
    // An undeclared parameter is ignored: the member is added with the declared ones.
    const withRole = await post({ user_id: other.id, access_level: 30, role: "dev" });
    expect(withRole.status(), await withRole.text()).toBe(201);
    expect(await withRole.json()).toMatchObject({ id: other.id, access_level: 30 });
    expect((await request.delete(`${members}/${other.id}`, { headers: asToken(owner.token) })).status()).toBe(204);
    await expectJson(await request.get(`${members}/abc`, { headers: asToken(owner.token) }), 400, { error: "user_id is invalid" });
    await expectJson(await request.put(`${members}/${owner.id}`, { headers: asToken(owner.token), data: {} }), 400, {
      error: "access_level is missing",
    });
    // Query-string and form bodies work as JSON does.
    const form = await request.post(members, { headers: asToken(owner.token), form: { user_id: String(other.id), access_level: "20" } });
    expect(form.status(), await form.text()).toBe(201);
    expect((await form.json()).access_level).toBe(20);
  });
});
