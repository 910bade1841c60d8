import { expect, test } from "@playwright/test";
import { createUser, uniqueName } from "../support/api";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

// python-gitlab 3.12 as people script GitLab groups with it: nested groups, members, inherited members, group projects,
// transfers and namespaces, through its own methods.

test.beforeEach(() => requirePythonGitlab());

test("groups nest, members inherit, projects are created in and transferred to groups, namespaces list them", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const stranger = await createUser(request);
  const root = uniqueName("acme");
  const out = runPythonGitlab(
    `
root = gl.groups.create({"name": "Acme", "path": args["root"]})
platform = gl.groups.create({"name": "Platform", "path": "platform", "parent_id": root.id})
out["platform"] = [platform.full_path, platform.full_name, platform.parent_id == root.id, platform.visibility]
root.members.create({"user_id": args["developer"], "access_level": 30})
out["direct"] = sorted((m.username, m.access_level) for m in platform.members.list(get_all=True))
out["all"] = sorted((m.username, m.access_level) for m in platform.members_all.list(get_all=True))

api = gl.projects.create({"name": "API", "path": "api", "namespace_id": platform.id})
out["api"] = [api.path_with_namespace, api.namespace["kind"], api.namespace["full_path"], api.namespace["parent_id"] == root.id]
out["project_members_all"] = sorted((m.username, m.access_level) for m in api.members_all.list(get_all=True))
out["root_projects"] = [p.path_with_namespace for p in root.projects.list(get_all=True)]
out["root_projects_with_subgroups"] = [p.path_with_namespace for p in root.projects.list(include_subgroups=True, get_all=True)]
out["by_path"] = gl.projects.get(args["root"] + "/platform/api").id == api.id
out["group_by_path"] = gl.groups.get(args["root"] + "/platform").id == platform.id
out["subgroups"] = [g.full_path for g in root.subgroups.list(get_all=True)]
out["descendants"] = [g.full_path for g in root.descendant_groups.list(get_all=True)]

mine = gl.projects.create({"name": "Tool", "path": "tool"})
mine.transfer(platform.id)
moved = gl.projects.get(mine.id)
out["moved"] = [moved.path_with_namespace, moved.namespace["id"] == platform.id]

out["min_access_level"] = sorted(g.full_path for g in gl.groups.list(min_access_level=10, get_all=True))
out["search"] = [g.full_path for g in gl.groups.list(search="platform", get_all=True)]
out["namespaces"] = sorted(n.full_path for n in gl.namespaces.list(search=args["root"], get_all=True))
out["namespace_kinds"] = sorted({n.kind for n in gl.namespaces.list(get_all=True)})
out["exists"] = gl.http_get("/namespaces/" + args["root"] + "/exists")

dev = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=args["developer_token"])
out["dev_sees"] = [g.full_path for g in dev.groups.list(get_all=True)]
dev_api = dev.projects.get(args["root"] + "/platform/api")
out["dev_reads_api"] = [dev_api.id == api.id, dev_api.name_with_namespace, dev_api.permissions]
try:
    dev.groups.create({"name": "Sub", "path": "sub", "parent_id": root.id})
    out["dev_subgroup"] = "created"
except gitlab.exceptions.GitlabCreateError as error:
    out["dev_subgroup"] = error.response_code
stranger = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=args["stranger_token"])
try:
    stranger.groups.get(root.id)
    out["stranger"] = "found"
except gitlab.exceptions.GitlabGetError as error:
    out["stranger"] = error.response_code
out["stranger_projects"] = [p.id for p in stranger.projects.list(search="api", get_all=True) if p.id == api.id]
`,
    {
      baseURL: baseURL!,
      token: owner.token,
      args: { root, developer: developer.id, developer_token: developer.token, stranger_token: stranger.token },
    },
  );
  const platformPath = `${root}/platform`;
  expect(out).toEqual({
    platform: [platformPath, "Acme / Platform", true, "private"],
    // The creator of a subgroup is its Owner, as on GitLab.
    direct: [[owner.username, 50]],
    all: [
      [developer.username, 30],
      [owner.username, 50],
    ].sort(),
    api: [`${platformPath}/api`, "group", platformPath, true],
    project_members_all: [
      [developer.username, 30],
      [owner.username, 50],
    ].sort(),
    root_projects: [],
    root_projects_with_subgroups: [`${platformPath}/api`],
    by_path: true,
    group_by_path: true,
    subgroups: [platformPath],
    descendants: [platformPath],
    moved: [`${platformPath}/tool`, true],
    min_access_level: [root, platformPath],
    search: [platformPath],
    namespaces: [root],
    namespace_kinds: ["group", "user"],
    exists: { exists: true, suggests: [`${root}1`] },
    dev_sees: [root, platformPath],
    // The developer's role comes from the group above, which the project's permissions show as GitLab's group_access.
    dev_reads_api: [true, "Acme / Platform / API", { project_access: null, group_access: { access_level: 30, notification_level: 3 } }],
    dev_subgroup: 403,
    stranger: 404,
    stranger_projects: [],
  });
});
