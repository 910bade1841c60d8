import { readFileSync } from "node:fs";
import { Gitlab } from "@gitbeaker/rest";
import { expect, test } from "@playwright/test";
import { addMember, createProject, createUser, rootToken, uniqueName } from "../support/api";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";

// gitbeaker (@gitbeaker/rest) as people script GitLab with it: projects, members, users and tokens through its own
// methods, asserting what the client hands back.

const serviceVersion = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

/** The status and message of a request gitbeaker refused to hand back (it throws for any non-2xx answer). */
async function failure(call: Promise<unknown>): Promise<[number | undefined, string]> {
  try {
    await call;
  } catch (error) {
    const cause = (error as { cause?: { response?: Response; description?: string } }).cause;
    return [cause?.response?.status, cause?.description ?? String(error)];
  }
  throw new Error("the request succeeded");
}

function client(baseURL: string | undefined, token: string) {
  return new Gitlab({ host: baseURL!, token });
}

test("Metadata.show() answers the GitLab version served and this service's revision", async ({ request, baseURL }) => {
  const user = await createUser(request);
  expect(await client(baseURL, user.token).Metadata.show()).toEqual({
    version: "16.10.0",
    revision: serviceVersion,
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: false,
  });
});

test("Projects.all takes GitLab's filters, for everyone's projects and one user's (Users.allProjects)", async ({ request, baseURL }) => {
  const alice = await createUser(request);
  const bob = await createUser(request);
  const marker = uniqueName("gbp").toLowerCase();
  const api = client(baseURL, alice.token);
  const alpha = await api.Projects.create({ name: `Alpha ${marker}`, visibility: "public" });
  const beta = await api.Projects.create({
    name: `Beta ${marker}`,
    visibility: "internal",
    // A GitLab parameter gitbeaker's types leave out; it sends it as issues_enabled all the same.
    ...({ issuesEnabled: false } as object),
  });
  const gamma = await api.Projects.create({ name: `Gamma ${marker}` });
  const archived = await api.Projects.archive(gamma.id);
  expect(archived).toMatchObject({ id: gamma.id, archived: true });
  const bobs = await createProject(request, bob.token, { name: `Delta ${marker}`, visibility: "public" });

  const names = async (options: Record<string, unknown> = {}) =>
    ((await api.Projects.all({ search: marker, ...options })) as { name: string }[]).map((project) => project.name.split(" ")[0]);
  expect(await names()).toEqual(["Delta", "Gamma", "Beta", "Alpha"]);
  expect(await names({ archived: false })).toEqual(["Delta", "Beta", "Alpha"]);
  expect(await names({ archived: true })).toEqual(["Gamma"]);
  expect(await names({ orderBy: "name", sort: "asc" })).toEqual(["Alpha", "Beta", "Delta", "Gamma"]);
  expect(await names({ owned: true, visibility: "internal" })).toEqual(["Beta"]);
  expect(await names({ membership: true, minAccessLevel: 50 })).toEqual(["Gamma", "Beta", "Alpha"]);
  expect(await names({ withIssuesEnabled: true })).toEqual(["Delta", "Gamma", "Alpha"]);
  expect(await names({ idAfter: alpha.id, idBefore: bobs.id })).toEqual(["Gamma", "Beta"]);
  expect(await names({ lastActivityBefore: "2001-01-01T00:00:00Z" })).toEqual([]);
  expect(await names({ search: `${alice.username}/beta`, searchNamespaces: true })).toEqual(["Beta"]);

  const [simple] = (await api.Projects.all({ search: `Alpha ${marker}`, simple: true })) as Record<string, unknown>[];
  expect(simple).toMatchObject({ id: alpha.id, path_with_namespace: alpha.path_with_namespace, default_branch: "main", star_count: 0 });
  expect(simple).not.toHaveProperty("visibility");
  const [full] = (await api.Projects.all({ search: `Beta ${marker}`, statistics: true })) as Record<string, unknown>[];
  expect(full).toMatchObject({
    id: beta.id,
    visibility: "internal",
    issues_enabled: false,
    issues_access_level: "disabled",
    permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null },
    statistics: { commit_count: 0, repository_size: 0, storage_size: 0 },
  });
  expect(full).not.toHaveProperty("open_issues_count");

  // One user's projects, as another user and anonymously.
  const asBob = client(baseURL, bob.token);
  const alicesForBob = (await asBob.Users.allProjects(alice.id, { search: marker })) as { id: number }[];
  expect(alicesForBob.map((project) => project.id)).toEqual([beta.id, alpha.id]);
  const anonymous = new Gitlab({ host: baseURL! });
  const alicesForAnyone = (await anonymous.Projects.all({ userId: alice.username, search: marker })) as Record<string, unknown>[];
  expect(alicesForAnyone.map((project) => project.id)).toEqual([alpha.id]);
  // Anonymous callers get GitLab's basic project details.
  expect(alicesForAnyone[0]).not.toHaveProperty("permissions");
});

test.describe("with a repository", () => {
  let git: GitSandbox;
  test.beforeEach(() => {
    git = new GitSandbox();
  });
  test.afterEach(() => git.dispose());

  test("Projects.show with statistics, edit of the default branch and name, unarchive, remove", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = await pushMain(git, remote, 3);
    await git.ok(["push", "--quiet", "origin", "main:refs/heads/release"], work);
    const api = client(baseURL, owner.token);

    const shown = (await api.Projects.show(project.id, { statistics: true })) as Record<string, unknown>;
    expect(shown).toMatchObject({ default_branch: "main", empty_repo: false, archived: false, statistics: { commit_count: 3 } });
    const size = (shown.statistics as { repository_size: number }).repository_size;
    expect(size).toBeGreaterThan(0);
    // Statistics are for Reporters and above: another user sees the public project without them.
    const stranger = await createUser(request);
    expect(await client(baseURL, stranger.token).Projects.show(project.id, { statistics: true })).not.toHaveProperty("statistics");

    const edited = (await api.Projects.edit(project.id, { defaultBranch: "release", name: "Edited by gitbeaker" })) as Record<string, unknown>;
    expect(edited).toMatchObject({ default_branch: "release", name: "Edited by gitbeaker", path: project.path });
    expect(await git.ok(["ls-remote", "--symref", remote, "HEAD"])).toMatch(/^ref: refs\/heads\/release\tHEAD/);
    expect(await failure(api.Projects.edit(project.id, { defaultBranch: "missing" }))).toEqual([
      400,
      JSON.stringify({ base: ["Could not change HEAD: branch 'missing' does not exist"] }),
    ]);
    expect(await failure(api.Projects.edit(project.id, {}))).toEqual([
      400,
      "name, path, description, visibility, default_branch, issues_enabled are missing, at least one parameter must be provided",
    ]);

    await api.Projects.archive(project.id);
    expect(await api.Projects.unarchive(project.id)).toMatchObject({ id: project.id, archived: false });
    expect(await api.Projects.remove(project.id)).toEqual({ message: "202 Accepted" });
    expect(await failure(api.Projects.show(project.id))).toEqual([404, "404 Project Not Found"]);
  });

  test("Events.all shows a push of many tags as one bulk event", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = await pushMain(git, remote, 1);
    for (const tag of ["v1", "v2", "v3", "v4"]) await git.ok(["tag", tag], work);
    await git.ok(["push", "--quiet", "origin", "--tags"], work);

    const events = (await client(baseURL, owner.token).Events.all({ projectId: project.id, action: "pushed", sort: "asc" })) as unknown as {
      action_name: string;
      push_data: Record<string, unknown>;
    }[];
    expect(events.map((event) => [event.action_name, event.push_data.ref_type, event.push_data.ref, event.push_data.ref_count])).toEqual([
      ["pushed new", "branch", "main", null],
      ["pushed new", "tag", null, 4],
    ]);
    expect(events[1]!.push_data).toEqual({
      commit_count: 0,
      action: "created",
      ref_type: "tag",
      commit_from: null,
      commit_to: null,
      ref: null,
      commit_title: null,
      ref_count: 4,
    });
  });
});

test("ProjectMembers.all and show with includeInherited read members/all", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const reporter = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, reporter.id, 20);
  const api = client(baseURL, reporter.token);
  const all = (await api.ProjectMembers.all(project.id, { includeInherited: true })) as { id: number; access_level: number }[];
  expect(all.map((member) => [member.id, member.access_level])).toEqual([
    [owner.id, 50],
    [reporter.id, 20],
  ]);
  expect(await api.ProjectMembers.show(project.id, owner.id, { includeInherited: true })).toMatchObject({
    id: owner.id,
    username: owner.username,
    access_level: 50,
  });
  const byIds = (await api.ProjectMembers.all(project.id, { includeInherited: true, userIds: [reporter.id] })) as { id: number }[];
  expect(byIds.map((member) => member.id)).toEqual([reporter.id]);
});

test("Users.all filters and Users.edit as an admin; GitLab's entity fields in the answers", async ({ request, baseURL }) => {
  const marker = uniqueName("gbu").toLowerCase();
  const admin = client(baseURL, rootToken);
  const made = await admin.Users.create({
    username: `${marker}_one`,
    email: `${marker}_one@example.com`,
    name: "One",
    password: "a long enough password",
    skipConfirmation: true,
  });
  const blocked = await createUser(request);
  await admin.Users.block(blocked.id);

  const usernames = async (options: Record<string, unknown>) =>
    ((await admin.Users.all({ search: marker, ...options })) as { username: string }[]).map((user) => user.username);
  expect(await usernames({ active: true })).toEqual([`${marker}_one`]);
  expect(await usernames({ external: true })).toEqual([]);
  expect(((await admin.Users.all({ blocked: true, username: blocked.username })) as { id: number }[]).map((user) => user.id)).toEqual([
    blocked.id,
  ]);

  // gitbeaker sends this one as a multipart form without turning camelCase into GitLab's names, so they are given as is.
  const profile = { bio: "Writes things", location: "Porto", organization: "ACME", job_title: "Writer", website_url: "https://example.com/one" };
  const edited = (await admin.Users.edit(made.id, { ...profile, external: true } as Parameters<typeof admin.Users.edit>[1])) as Record<
    string,
    unknown
  >;
  expect(edited).toMatchObject({
    id: made.id,
    username: `${marker}_one`,
    bio: "Writes things",
    location: "Porto",
    organization: "ACME",
    job_title: "Writer",
    website_url: "https://example.com/one",
    work_information: "Writer at ACME",
    external: true,
    bot: false,
    email: `${marker}_one@example.com`,
  });
  expect(await usernames({ external: true })).toEqual([`${marker}_one`]);
  const other = await createUser(request);
  expect(await failure(admin.Users.edit(made.id, { username: other.username }))).toEqual([409, "Username has already been taken"]);
  expect(await failure(client(baseURL, other.token).Users.edit(made.id, { bio: "mine now" }))).toEqual([403, "403 Forbidden"]);
});

test("PersonalAccessTokens: show the token itself, rotate it by id, and a token revokes itself", async ({ request, baseURL }) => {
  const user = await createUser(request);
  const api = client(baseURL, user.token);
  const self = (await api.PersonalAccessTokens.show()) as Record<string, unknown>;
  expect(self).toMatchObject({ name: "e2e", scopes: ["api"], user_id: user.id, active: true, revoked: false });

  const inAWeek = () => new Date(Date.now() + 7 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
  const weekFromBefore = inAWeek();
  const rotated = (await api.PersonalAccessTokens.rotate(self.id as number)) as Record<string, unknown>;
  expect(rotated).toMatchObject({ name: "e2e", scopes: ["api"], user_id: user.id, active: true, revoked: false });
  expect(rotated.id).not.toBe(self.id);
  // GitLab's default lifetime for a rotated token: a week (the day may turn while the test runs).
  expect([weekFromBefore, inAWeek()]).toContain(rotated.expires_at);
  expect(await failure(api.Users.showCurrentUser())).toEqual([401, "invalid_token"]);

  const fresh = client(baseURL, rotated.token as string);
  expect(await fresh.Users.showCurrentUser()).toMatchObject({ id: user.id });
  await fresh.PersonalAccessTokens.remove();
  expect((await failure(fresh.Users.showCurrentUser()))[0]).toBe(401);
});
