import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { addMember, asToken, createProject, createUser, rootToken, uniqueName } from "../support/api";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

// python-gitlab 3.12 as people script GitLab with it: projects, members, users and tokens through its own methods,
// asserting what the client hands back.

const serviceVersion = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

test.beforeEach(() => requirePythonGitlab());

test("gl.version() answers the GitLab version served and this service's revision, as /metadata does", async ({ request, baseURL }) => {
  const user = await createUser(request);
  const out = runPythonGitlab(
    `
out["version"] = list(gl.version())
out["metadata"] = gl.http_get("/metadata")
anonymous = gitlab.Gitlab(os.environ["GITLAB_URL"])
out["anonymous"] = list(anonymous.version())
`,
    { baseURL: baseURL!, token: user.token },
  );
  expect(out).toEqual({
    version: ["16.10.0", serviceVersion],
    metadata: {
      version: "16.10.0",
      revision: serviceVersion,
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: false,
    },
    // GitLab answers /version only to signed-in callers; python-gitlab then says it does not know.
    anonymous: ["unknown", "unknown"],
  });
});

test("gl.projects.list takes GitLab's filters: archived, visibility, order, ownership, roles, ids, activity, search, simple, statistics", async ({
  request,
  baseURL,
}) => {
  const alice = await createUser(request);
  const bob = await createUser(request);
  const marker = uniqueName("pgl");
  const bobs = await createProject(request, bob.token, { name: `Delta ${marker}`, visibility: "private" });
  await addMember(request, bob.token, bobs.id, alice.id, 20);
  const out = runPythonGitlab(
    `
m = args["marker"]
alpha = gl.projects.create({"name": "Alpha " + m, "visibility": "public", "description": "The first"})
beta = gl.projects.create({"name": "Beta " + m, "visibility": "internal"})
gamma = gl.projects.create({"name": "Gamma " + m, "issues_enabled": False})
gamma.archive()
out["gamma_archived"] = gamma.archived

def names(**filters):
    return [p.name.split(" ")[0] for p in gl.projects.list(search=m, get_all=True, **filters)]

out["default"] = names()
out["not_archived"] = names(archived=False)
out["archived"] = names(archived=True)
out["public"] = names(visibility="public")
out["by_name"] = names(order_by="name", sort="asc")
out["owned"] = names(owned=True)
out["membership"] = names(membership=True, order_by="name", sort="asc")
out["maintainer_or_more"] = names(min_access_level=40, order_by="name", sort="asc")
out["with_issues"] = names(with_issues_enabled=True, order_by="name", sort="asc")
out["between_ids"] = names(id_after=alpha.id, id_before=gamma.id)
out["recent"] = names(last_activity_after="2000-01-01T00:00:00Z", order_by="name", sort="asc")
out["future"] = names(last_activity_after="2999-01-01")
out["full_path"] = [p.id for p in gl.projects.list(search=args["username"] + "/alpha", search_namespaces=True, get_all=True)]
out["own_path_only"] = [p.id for p in gl.projects.list(search=args["username"] + "/alpha", get_all=True)]

simple = gl.projects.list(search="Alpha " + m, simple=True)[0]
out["simple_has_visibility"] = "visibility" in simple.attributes
out["simple"] = [simple.id, simple.path_with_namespace, simple.default_branch]
full = gl.projects.list(search="Alpha " + m, statistics=True)[0]
out["full"] = {key: full.attributes.get(key) for key in ["visibility", "archived", "issues_enabled", "open_issues_count", "empty_repo", "default_branch"]}
out["permissions"] = full.permissions
out["statistics"] = full.statistics
out["ids"] = {"alpha": alpha.id, "gamma": gamma.id}
`,
    { baseURL: baseURL!, token: alice.token, args: { marker, username: alice.username } },
  );
  const ids = out.ids as { alpha: number; gamma: number };
  expect(out).toEqual({
    gamma_archived: true,
    // Newest first; archived projects are listed unless archived=false asks otherwise.
    default: ["Gamma", "Beta", "Alpha", "Delta"],
    not_archived: ["Beta", "Alpha", "Delta"],
    archived: ["Gamma"],
    public: ["Alpha"],
    by_name: ["Alpha", "Beta", "Delta", "Gamma"],
    owned: ["Gamma", "Beta", "Alpha"],
    membership: ["Alpha", "Beta", "Delta", "Gamma"],
    maintainer_or_more: ["Alpha", "Beta", "Gamma"],
    with_issues: ["Alpha", "Beta", "Delta"],
    between_ids: ["Beta"],
    recent: ["Alpha", "Beta", "Delta", "Gamma"],
    future: [],
    full_path: [ids.alpha],
    own_path_only: [],
    simple_has_visibility: false,
    simple: [ids.alpha, `${alice.username}/alpha-${marker.toLowerCase()}`, "main"],
    full: { visibility: "public", archived: false, issues_enabled: true, open_issues_count: 0, empty_repo: true, default_branch: "main" },
    permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null },
    statistics: {
      commit_count: 0,
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
      container_registry_size: 0,
    },
    ids: out.ids,
  });
});

test.describe("with a repository", () => {
  let git: GitSandbox;
  test.beforeEach(() => {
    git = new GitSandbox();
  });
  test.afterEach(() => git.dispose());

  test("projects.get(statistics=True), save() of the name, path, description and default branch, archive, unarchive and delete", async ({
    request,
    baseURL,
  }) => {
    const owner = await createUser(request);
    const maintainer = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, maintainer.id, 40);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = await pushMain(git, remote, 2);
    await git.ok(["checkout", "--quiet", "-b", "develop"], work);
    await git.commit(work, "develop.txt", "d\n", "Develop work");
    await git.ok(["push", "--quiet", "origin", "develop"], work);
    const newPath = `renamed-${project.path}`;

    const edited = runPythonGitlab(
      `
p = gl.projects.get(args["id"], statistics=True)
out["before"] = [p.default_branch, p.empty_repo, p.statistics["commit_count"], p.statistics["repository_size"] > 0,
                 p.statistics["storage_size"] == p.statistics["repository_size"]]
p.default_branch = "develop"
p.description = "Changed by python-gitlab"
p.name = "Renamed"
p.path = args["path"]
p.save()
out["saved"] = [p.default_branch, p.description, p.name, p.path, p.path_with_namespace]
again = gl.projects.get(args["id"], statistics=True)
out["reloaded"] = [again.default_branch, again.name, again.statistics["commit_count"]]
try:
    again.visibility = "public"
    again.save()
except gitlab.GitlabUpdateError as error:
    out["maintainer_visibility"] = [error.response_code, error.error_message]
try:
    fresh = gl.projects.get(args["id"])
    fresh.default_branch = "nope"
    fresh.save()
except gitlab.GitlabUpdateError as error:
    out["missing_branch"] = [error.response_code, error.error_message]
try:
    gl.projects.get(args["id"]).archive()
except gitlab.GitlabCreateError as error:
    out["maintainer_archive"] = error.response_code
`,
      { baseURL: baseURL!, token: maintainer.token, args: { id: project.id, path: newPath } },
    );
    expect(edited).toEqual({
      before: ["main", false, 2, true, true],
      saved: ["develop", "Changed by python-gitlab", "Renamed", newPath, `${owner.username}/${newPath}`],
      reloaded: ["develop", "Renamed", 3],
      maintainer_visibility: [403, "403 Forbidden"],
      missing_branch: [400, { base: ["Could not change HEAD: branch 'nope' does not exist"] }],
      maintainer_archive: 403,
    });
    // The repository's HEAD moved with the default branch: a fresh clone checks out develop, at its new path.
    const renamedRemote = remoteUrl(baseURL!, `${owner.username}/${newPath}`, { password: owner.token });
    expect(await git.ok(["ls-remote", "--symref", renamedRemote, "HEAD"])).toMatch(/^ref: refs\/heads\/develop\tHEAD/);

    const archived = runPythonGitlab(
      `
p = gl.projects.get(args["id"])
p.archive()
out["archived"] = [p.archived, [x.id for x in gl.projects.list(owned=True, archived=True, get_all=True)]]
out["listed_unless_asked"] = args["id"] in [x.id for x in gl.projects.list(owned=True, get_all=True)]
out["hidden_with_false"] = args["id"] in [x.id for x in gl.projects.list(owned=True, archived=False, get_all=True)]
`,
      { baseURL: baseURL!, token: owner.token, args: { id: project.id } },
    );
    expect(archived).toEqual({ archived: [true, [project.id]], listed_unless_asked: true, hidden_with_false: false });
    // Archived projects are read-only: no pushes, and git is told why.
    await git.commit(work, "late.txt", "late\n", "Too late");
    const refused = await git.run(["push", "--quiet", renamedRemote, "develop"], work);
    expect(refused.code).not.toBe(0);
    const receive = await request.get(`/${owner.username}/${newPath}.git/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${owner.token}`).toString("base64")}` },
    });
    expect(receive.status()).toBe(403);
    expect(await receive.text()).toBe("You are not allowed to push code to an archived project.\n");

    const deleted = runPythonGitlab(
      `
p = gl.projects.get(args["id"])
p.unarchive()
out["unarchived"] = p.archived
p.delete()
try:
    gl.projects.get(args["id"])
except gitlab.GitlabGetError as error:
    out["gone"] = [error.response_code, error.error_message]
`,
      { baseURL: baseURL!, token: owner.token, args: { id: project.id } },
    );
    expect(deleted).toEqual({ unarchived: false, gone: [404, "404 Project Not Found"] });
    const events = await request.get(`/api/v4/projects/${project.id}/events`, { headers: { "PRIVATE-TOKEN": rootToken } });
    expect(events.status()).toBe(404);
    const clone = await git.run(["clone", "--quiet", renamedRemote, git.dir("after-delete")]);
    expect(clone.code).not.toBe(0);
  });

  test("a push of more branches than GitLab's limit shows as one bulk event in project.events", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = await pushMain(git, remote, 1);
    const branches = ["b1", "b2", "b3", "b4", "b5"];
    for (const branch of branches) await git.ok(["branch", branch], work);
    await git.ok(["push", "--quiet", "origin", ...branches], work);
    await git.ok(["push", "--quiet", "origin", "b1:refs/heads/single"], work);

    const out = runPythonGitlab(
      `
p = gl.projects.get(args["id"])
out["events"] = [[e.action_name, e.push_data] for e in p.events.list(action="pushed", sort="asc", get_all=True)]
`,
      { baseURL: baseURL!, token: owner.token, args: { id: project.id } },
    );
    const head = await git.ok(["rev-parse", "HEAD"], work);
    expect(out.events).toEqual([
      ["pushed new", { commit_count: 1, action: "created", ref_type: "branch", commit_from: null, commit_to: head, ref: "main", commit_title: "Commit 1", ref_count: null }],
      ["pushed new", { commit_count: 0, action: "created", ref_type: "branch", commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 5 }],
      // Its commit was pushed before, so it brings none.
      ["pushed new", { commit_count: 0, action: "created", ref_type: "branch", commit_from: null, commit_to: head, ref: "single", commit_title: "Commit 1", ref_count: null }],
    ]);
  });
});

test("project.members_all lists and gets the project's members, as project.members does", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, developer.id, 30);
  const out = runPythonGitlab(
    `
p = gl.projects.get(args["id"])
out["all"] = [[m.id, m.username, m.access_level] for m in p.members_all.list(get_all=True)]
out["direct"] = [[m.id, m.username, m.access_level] for m in p.members.list(get_all=True)]
one = p.members_all.get(args["developer"])
out["one"] = [one.username, one.access_level, one.expires_at]
out["query"] = [m.username for m in p.members_all.list(query=args["developer_name"])]
try:
    p.members_all.get(2147483647)
except gitlab.GitlabGetError as error:
    out["missing"] = [error.response_code, error.error_message]
`,
    { baseURL: baseURL!, token: developer.token, args: { id: project.id, developer: developer.id, developer_name: developer.username } },
  );
  expect(out).toEqual({
    all: [
      [owner.id, owner.username, 50],
      [developer.id, developer.username, 30],
    ],
    direct: [
      [owner.id, owner.username, 50],
      [developer.id, developer.username, 30],
    ],
    one: [developer.username, 30, null],
    query: [developer.username],
    missing: [404, "404 Member Not Found"],
  });
});

test("gl.users.list filters, user.save() and user.projects; an external user sees public projects and their own only", async ({ request, baseURL }) => {
  const marker = uniqueName("pgu").toLowerCase();
  const owner = await createUser(request);
  const internal = await createProject(request, owner.token, { name: `Internal ${marker}`, visibility: "internal" });
  await createProject(request, owner.token, { name: `Public ${marker}`, visibility: "public" });
  const joined = await createProject(request, owner.token, { name: `Joined ${marker}`, visibility: "internal" });

  const admin = runPythonGitlab(
    `
m = args["marker"]
def create(suffix, **extra):
    return gl.users.create(dict({"username": m + "_" + suffix, "email": m + "_" + suffix + "@example.com", "name": "User " + suffix,
                                 "password": "a long enough password", "skip_confirmation": True}, **extra))
active = create("active")
external = create("external", external=True)
blocked = create("blocked")
blocked.block()
def usernames(**filters):
    return [u.username[len(m) + 1:] for u in gl.users.list(search=m, get_all=True, **filters)]
out["all"] = usernames()
out["active"] = usernames(active=True)
out["blocked"] = usernames(blocked=True)
out["external"] = usernames(external=True)
out["created_after"] = usernames(created_after="2999-01-01T00:00:00Z")
out["by_username"] = usernames(order_by="username", sort="asc")
external.bio = "Contractor"
external.job_title = "Auditor"
external.organization = "Outside Ltd"
external.save()
out["saved"] = [external.bio, external.work_information, external.external]
reloaded = gl.users.get(external.id)
out["reloaded"] = [reloaded.bio, reloaded.job_title, reloaded.organization, reloaded.external]
token = external.personal_access_tokens.create({"name": "pgl", "scopes": ["api"]})
out["token"] = token.token
out["external_id"] = external.id
`,
    { baseURL: baseURL!, token: rootToken, args: { marker } },
  );
  expect(admin).toMatchObject({
    all: ["blocked", "external", "active"],
    active: ["external", "active"],
    blocked: ["blocked"],
    external: ["external"],
    created_after: [],
    by_username: ["active", "blocked", "external"],
    saved: ["Contractor", "Auditor at Outside Ltd", true],
    reloaded: ["Contractor", "Auditor", "Outside Ltd", true],
  });
  await addMember(request, owner.token, joined.id, admin.external_id as number, 20);

  const asExternal = runPythonGitlab(
    `
out["visible"] = sorted(p.name.split(" ")[0] for p in gl.projects.list(search=args["marker"], get_all=True))
try:
    gl.projects.get(args["internal"])
except gitlab.GitlabGetError as error:
    out["internal"] = error.response_code
owner = gl.users.get(args["owner"])
out["owner_projects"] = sorted(p.name.split(" ")[0] for p in owner.projects.list(get_all=True))
try:
    gl.users.list(external=True)
except gitlab.GitlabListError as error:
    out["external_filter"] = [error.response_code, error.error_message]
`,
    { baseURL: baseURL!, token: admin.token as string, args: { marker, internal: internal.id, owner: owner.id } },
  );
  expect(asExternal).toEqual({
    visible: ["Joined", "Public"],
    internal: 404,
    owner_projects: ["Joined", "Public"],
    external_filter: [403, "403 Forbidden"],
  });
});

test("personal access tokens: the token reads itself, rotates into a new one with its name and scopes, and the old one stops working", async ({
  request,
  baseURL,
}) => {
  const user = await createUser(request);
  const out = runPythonGitlab(
    `
me = gl.http_get("/personal_access_tokens/self")
out["self"] = {key: me[key] for key in ["name", "scopes", "user_id", "revoked", "active", "expires_at"]}
rotated = gl.http_post("/personal_access_tokens/%d/rotate" % me["id"], post_data={"expires_at": "2999-01-31"})
out["rotated"] = {key: rotated[key] for key in ["name", "scopes", "user_id", "revoked", "active", "expires_at"]}
out["new_id"] = rotated["id"] != me["id"]
fresh = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=rotated["token"])
fresh.auth()
out["new_token_user"] = fresh.user.username
try:
    gl.auth()
except gitlab.GitlabAuthenticationError as error:
    out["old_token"] = error.response_code
out["tokens"] = [[t.name, t.revoked] for t in fresh.personal_access_tokens.list(get_all=True)]
try:
    fresh.http_post("/personal_access_tokens/%d/rotate" % me["id"])
except gitlab.GitlabHttpError as error:
    out["rotate_revoked"] = [error.response_code, error.error_message]
`,
    { baseURL: baseURL!, token: user.token },
  );
  expect(out).toEqual({
    self: { name: "e2e", scopes: ["api"], user_id: user.id, revoked: false, active: true, expires_at: null },
    rotated: { name: "e2e", scopes: ["api"], user_id: user.id, revoked: false, active: true, expires_at: "2999-01-31" },
    new_id: true,
    new_token_user: user.username,
    old_token: 401,
    tokens: [
      ["e2e", true],
      ["e2e", false],
    ],
    rotate_revoked: [400, "400 Bad request - Token already revoked"],
  });
});

test("deleting projects while iterating them by keyset reaches every one of them, as it does on GitLab", async ({ request, baseURL }) => {
  const user = await createUser(request);
  for (let index = 0; index < 45; index += 1) await createProject(request, user.token, { name: uniqueName("Doomed") });
  const out = runPythonGitlab(
    `
deleted = 0
for project in gl.projects.list(owned=True, pagination="keyset", order_by="id", per_page=10, iterator=True):
    project.delete()
    deleted += 1
out["deleted"] = deleted
out["left"] = len(gl.projects.list(owned=True, get_all=True))
`,
    { baseURL: baseURL!, token: user.token },
  );
  // Offset pages would skip what each deletion moves forward (GitLab's own documentation warns of it); keyset pages
  // continue from the last project seen.
  expect(out).toEqual({ deleted: 45, left: 0 });
});

test("gl.users.list iterates every user by keyset, in the order an admin asks for", async ({ request, baseURL }) => {
  const marker = uniqueName("keyset").toLowerCase();
  const ids: number[] = [];
  for (const name of ["Oscar", "Bravo", "Yankee", "Bravo", "Hotel", "Lima", "Delta"]) {
    const username = `${marker}_${ids.length}`;
    const response = await request.post("/api/v4/users", {
      headers: asToken(rootToken),
      data: { username, email: `${username}@example.com`, name: `${name} ${marker}`, password: "a long enough password", skip_confirmation: true },
    });
    expect(response.status()).toBe(201);
    ids.push(((await response.json()) as { id: number }).id);
  }
  const out = runPythonGitlab(
    `
def walk(**order):
    return [u.id for u in gl.users.list(search=args["marker"], pagination="keyset", per_page=2, iterator=True, **order)]

out["by_id"] = walk(order_by="id", sort="asc")
out["by_name"] = [u.name.split(" ")[0] for u in gl.users.list(search=args["marker"], pagination="keyset", per_page=3, order_by="name", sort="asc", iterator=True)]
out["default"] = walk()
`,
    { baseURL: baseURL!, token: rootToken, args: { marker } },
  );
  expect(out).toEqual({
    by_id: ids,
    by_name: ["Bravo", "Bravo", "Delta", "Hotel", "Lima", "Oscar", "Yankee"],
    default: [...ids].reverse(),
  });
});
