import { Gitlab } from "@gitbeaker/rest";
import { expect, test } from "@playwright/test";
import { createUser, uniqueName } from "../support/api";

// gitbeaker (@gitbeaker/rest) as people script GitLab groups with it: nested groups, direct and inherited members,
// projects in groups, transfers, search and min_access_level, through its own methods.

function client(baseURL: string | undefined, token: string) {
  return new Gitlab({ host: baseURL!, token });
}

/** The status of a request gitbeaker refused to hand back (it throws for any non-2xx answer). */
async function failedStatus(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    return (error as { cause?: { response?: Response } }).cause?.response?.status;
  }
  throw new Error("the request succeeded");
}

test("gitbeaker nests groups, adds members whose roles reach the projects below, and moves a project into a group", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const stranger = await createUser(request);
  const api = client(baseURL, owner.token);
  const rootPath = uniqueName("gbg").toLowerCase();
  const platformPath = `${rootPath}/platform`;

  const root = await api.Groups.create("Acme", rootPath);
  const platform = await api.Groups.create("Platform", "platform", { parentId: root.id });
  expect([platform.full_path, platform.full_name, platform.parent_id, platform.visibility]).toEqual([platformPath, "Acme / Platform", root.id, "private"]);

  const added = await api.GroupMembers.add(root.id, 30, { userId: developer.id });
  expect([added.username, added.access_level]).toEqual([developer.username, 30]);
  const direct = await api.GroupMembers.all(platform.id);
  expect(direct.map((member) => [member.username, member.access_level])).toEqual([[owner.username, 50]]);
  const inherited = await api.GroupMembers.all(platform.id, { includeInherited: true });
  expect(inherited.map((member) => [member.username, member.access_level]).sort()).toEqual(
    [
      [owner.username, 50],
      [developer.username, 30],
    ].sort(),
  );

  const project = await api.Projects.create({ name: "API", path: "api", namespaceId: platform.id });
  expect([project.path_with_namespace, project.name_with_namespace, project.namespace.kind, project.namespace.full_path]).toEqual([
    `${platformPath}/api`,
    "Acme / Platform / API",
    "group",
    platformPath,
  ]);
  expect((await api.Groups.allProjects(root.id)).map((each) => each.id)).toEqual([]);
  expect((await api.Groups.allProjects(root.id, { includeSubgroups: true })).map((each) => each.id)).toEqual([project.id]);
  expect((await api.Groups.allSubgroups(root.id)).map((group) => group.full_path)).toEqual([platformPath]);

  const tool = await api.Projects.create({ name: "Tool", path: "tool" });
  const moved = await api.Projects.transfer(tool.id, platform.id);
  expect([moved.id, moved.path_with_namespace]).toEqual([tool.id, `${platformPath}/tool`]);

  const asDeveloper = client(baseURL, developer.token);
  expect((await asDeveloper.Groups.all({ minAccessLevel: 10 })).map((group) => group.full_path).sort()).toEqual([rootPath, platformPath]);
  expect((await asDeveloper.Groups.all({ minAccessLevel: 40 })).map((group) => group.full_path)).toEqual([]);
  const seen = await asDeveloper.Projects.show(project.id);
  expect(seen.permissions).toEqual({ project_access: null, group_access: { access_level: 30, notification_level: 3 } });
  expect(await failedStatus(asDeveloper.Groups.create("Sub", "sub", { parentId: root.id }))).toBe(403);

  expect((await api.Groups.search("platform")).map((group) => group.full_path)).toEqual([platformPath]);
  const asStranger = client(baseURL, stranger.token);
  expect(await failedStatus(asStranger.Groups.show(root.id))).toBe(404);
  expect(await failedStatus(asStranger.Projects.show(project.id))).toBe(404);
});
