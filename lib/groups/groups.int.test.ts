import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { events, groupMembers, namespaces, projects } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, ProjectMovedError } from "@/lib/errors";
import { listOwnEvents, listProjectEvents } from "@/lib/events/query";
import { updateInstanceSettings } from "@/lib/instance/settings";
import { createContext } from "@/lib/context";
import { createProject, getVisibleProject, listProjects } from "@/lib/projects/projects";
import { projectNameWithNamespace } from "@/lib/projects/serialize";
import { addMember, updateMember } from "@/lib/projects/members";
import { transferProject } from "@/lib/projects/transfer";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createGroup, deleteGroup, maxNamespaceDepth, getVisibleGroup, listGroups, listSubgroups, updateGroup } from "./groups";
import { addGroupMember, listAllProjectMembers, removeGroupMember } from "./members";
import { getNamespace, listNamespaces, namespaceExists } from "./namespaces";
import { createIssue } from "@/lib/issues/issues";
import { listGroupIssues, listGroupProjects } from "./projects";

const page = { page: 1, perPage: 100, offset: 0 };
const eventPage = { kind: "offset", page: { page: 1, perPage: 20, offset: 0 } } as const;

describe.each(testDatabases())("groups on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  /** `acme` (private) > `platform` > `api` (a private project in `platform`), owned by a fresh user. */
  async function nestedTree() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const root = await createGroup(ctx, { name: "Acme", path: `acme-${uniqueSuffix()}` });
    const platform = await createGroup(ctx, { name: "Platform", path: "platform", parentId: root.group.id });
    const api = await createProject(ctx, { path: "api", namespaceId: platform.group.id });
    return { owner, ctx, root, platform, api };
  }

  it("nests groups: full paths, traversal ids from the root, full names, and the creator as Owner", async () => {
    const { owner, root, platform, api } = await nestedTree();
    expect(root.group).toMatchObject({ kind: "group", parentId: null, fullPath: root.group.path, traversalIds: [root.group.id], visibility: "private" });
    expect(platform.group).toMatchObject({ parentId: root.group.id, fullPath: `${root.group.path}/platform`, traversalIds: [root.group.id, platform.group.id] });
    expect(platform.fullName).toBe("Acme / Platform");
    expect(projectNameWithNamespace(api)).toBe("Acme / Platform / api");
    expect(await handle.db.select().from(groupMembers).where(eq(groupMembers.groupId, root.group.id))).toMatchObject([{ userId: owner.id, accessLevel: 50 }]);
    // No project membership in a group: the creator's role is the one they inherit.
    expect(api.accessLevel).toBe(50);
    const found = await getVisibleProject(userContext(handle.db, owner), encodeURIComponent(`${root.group.path}/platform/api`).replaceAll("%2F", "/"));
    expect(found.project.id).toBe(api.project.id);
    expect((await getVisibleGroup(userContext(handle.db, owner), `${root.group.path.toUpperCase()}/PLATFORM`)).group.id).toBe(platform.group.id);
  });

  it("nests up to 20 subgroups deep, as GitLab, and refuses a 21st", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    let parent = await createGroup(ctx, { name: "Deep", path: `deep-${uniqueSuffix()}` });
    for (let level = 1; level < maxNamespaceDepth; level++) parent = await createGroup(ctx, { name: `L${level}`, path: `l${level}`, parentId: parent.group.id });
    expect(parent.group.traversalIds).toHaveLength(21);
    const refused = await apiFailure(createGroup(ctx, { name: "Too deep", path: "too-deep", parentId: parent.group.id }));
    expect(refused).toMatchObject({ errors: { parent_id: ["has too deep level of nesting"] } });
  });

  it("keeps full paths unique among siblings and against usernames, case-insensitively", async () => {
    const { ctx, root } = await nestedTree();
    expect((await apiFailure(createGroup(ctx, { name: "Again", path: "PLATFORM", parentId: root.group.id }))).body()).toEqual({
      message: { path: ["has already been taken"] },
    });
    const other = await createTestUser(handle.db);
    expect((await apiFailure(createGroup(ctx, { name: "Clash", path: other.username.toUpperCase() }))).body()).toEqual({
      message: { path: ["has already been taken"] },
    });
    // The same path below another parent is free.
    const second = await createGroup(ctx, { name: "Second", path: `second-${uniqueSuffix()}` });
    expect((await createGroup(ctx, { name: "Platform", path: "platform", parentId: second.group.id })).group.fullPath).toBe(`${second.group.path}/platform`);
    expect(await namespaceExists(ctx, "platform", root.group.id)).toEqual({ exists: true, suggests: ["platform1"] });
    expect(await namespaceExists(ctx, `free-${uniqueSuffix()}`)).toEqual({ exists: false, suggests: [] });
  });

  it("caps visibility by the parent: no subgroup or project more visible than its group, no group less visible than what it holds", async () => {
    const { ctx, root, platform } = await nestedTree();
    expect((await apiFailure(createGroup(ctx, { name: "Open", path: "open", parentId: root.group.id, visibility: "public" }))).body()).toEqual({
      message: { visibility_level: ["public is not allowed since the parent group has a private visibility."] },
    });
    expect((await apiFailure(createProject(ctx, { path: "pub", namespaceId: platform.group.id, visibility: "internal" }))).body()).toEqual({
      message: { visibility_level: ["internal is not allowed in a private group."] },
    });
    await updateGroup(ctx, String(root.group.id), { visibility: "internal" });
    await updateGroup(ctx, String(platform.group.id), { visibility: "internal" });
    expect((await apiFailure(updateGroup(ctx, String(root.group.id), { visibility: "private" }))).body()).toEqual({
      message: { visibility_level: ["private is not allowed since there are sub-groups with higher visibility."] },
    });
  });

  it("lets users create top-level groups only while the instance allows it, and subgroups only as the parent's Maintainers", async () => {
    const { ctx, root } = await nestedTree();
    const user = await createTestUser(handle.db);
    const system = createContext(handle.db, { kind: "system", job: "test" });
    await updateInstanceSettings(system, { canCreateGroup: false });
    try {
      await expect(createGroup(userContext(handle.db, user), { name: "Mine", path: `mine-${uniqueSuffix()}` })).rejects.toThrow(ForbiddenError);
      const admin = await createTestUser(handle.db, { isAdmin: true });
      expect((await createGroup(userContext(handle.db, admin), { name: "Admins", path: `adm-${uniqueSuffix()}` })).accessLevel).toBe(50);
    } finally {
      await updateInstanceSettings(system, { canCreateGroup: true });
    }
    await addGroupMember(ctx, String(root.group.id), { userId: user.id, accessLevel: 30 });
    await expect(createGroup(userContext(handle.db, user), { name: "Sub", path: "sub", parentId: root.group.id })).rejects.toThrow(ForbiddenError);
    // A Developer may create projects in the group (GitLab's default project creation level).
    expect((await createProject(userContext(handle.db, user), { path: "dev-made", namespaceId: root.group.id })).accessLevel).toBe(30);
    const stranger = await createTestUser(handle.db);
    expect((await apiFailure(createProject(userContext(handle.db, stranger), { path: "x", namespaceId: root.group.id }))).body()).toEqual({
      message: { namespace: ["is not valid"] },
    });
  });

  it("gives group members their role in every subgroup and project below, the higher of direct and inherited, until it expires", async () => {
    const { ctx, root, platform, api } = await nestedTree();
    const member = await createTestUser(handle.db);
    const memberCtx = userContext(handle.db, member);
    const apiId = String(api.project.id);
    await expect(getVisibleProject(memberCtx, apiId)).rejects.toThrow(NotFoundError);

    await addGroupMember(ctx, String(root.group.id), { userId: member.id, accessLevel: 30 });
    expect((await getVisibleProject(memberCtx, apiId)).accessLevel).toBe(30);
    expect((await getVisibleGroup(memberCtx, String(platform.group.id))).accessLevel).toBe(30);

    // A lower direct role does not take away the inherited one; a higher one wins.
    await addMember(ctx, apiId, { userId: member.id, accessLevel: 10 });
    expect((await getVisibleProject(memberCtx, apiId)).accessLevel).toBe(30);
    await addGroupMember(ctx, String(platform.group.id), { userId: member.id, accessLevel: 40 });
    expect((await getVisibleProject(memberCtx, apiId)).accessLevel).toBe(40);
    expect((await listProjects(memberCtx, { minAccessLevel: 40 }, page)).items.map((view) => view.project.id)).toEqual([api.project.id]);

    const all = await listAllProjectMembers(memberCtx, apiId, page);
    expect(all.items.map((row) => [row.user.id, row.member.accessLevel]).sort((a, b) => a[0]! - b[0]!)).toEqual(
      [
        [api.project.creatorId, 50],
        [member.id, 40],
      ].sort((a, b) => a[0]! - b[0]!),
    );

    // Expired group memberships grant nothing: only the direct Guest role is left.
    await handle.db.update(groupMembers).set({ expiresAt: "2000-01-01" }).where(eq(groupMembers.userId, member.id));
    expect((await getVisibleProject(memberCtx, apiId)).accessLevel).toBe(10);
    expect((await listProjects(memberCtx, { minAccessLevel: 20 }, page)).items).toEqual([]);
    await removeGroupMember(ctx, String(platform.group.id), member.id);
  });

  it("shows a private group's projects to admins and inherited members only, in every list and read", async () => {
    const { ctx: ownerCtx, root, api } = await nestedTree();
    const inherited = await createTestUser(handle.db);
    await addGroupMember(ownerCtx, String(root.group.id), { userId: inherited.id, accessLevel: 10 });
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const stranger = await createTestUser(handle.db);
    const sees = async (ctx: ReturnType<typeof userContext>) => {
      const listed = (await listProjects(ctx, {}, { page: 1, perPage: 100, offset: 0 })).items.some((view) => view.project.id === api.project.id);
      const read = await getVisibleProject(ctx, String(api.project.id)).then(
        () => true,
        () => false,
      );
      const group = await getVisibleGroup(ctx, String(root.group.id)).then(
        () => true,
        () => false,
      );
      return { listed, read, group };
    };
    expect(await sees(userContext(handle.db, inherited))).toEqual({ listed: true, read: true, group: true });
    expect(await sees(userContext(handle.db, admin))).toEqual({ listed: true, read: true, group: true });
    expect(await sees(userContext(handle.db, stranger))).toEqual({ listed: false, read: false, group: false });
    expect(await sees(anonymousTestContext(handle.db))).toEqual({ listed: false, read: false, group: false });
    // The inherited member reads the project's events, and finds them among those of their projects (`scope=all`).
    const inheritedCtx = userContext(handle.db, inherited);
    expect((await listProjectEvents(inheritedCtx, String(api.project.id), {}, eventPage)).items).toHaveLength(1);
    const own = await listOwnEvents(inheritedCtx, true, {}, eventPage);
    expect(own.total).toBe(1);
    expect(own.items.map((item) => (JSON.parse(item.json) as { project_id: number }).project_id)).toEqual([api.project.id]);
    expect((await listOwnEvents(userContext(handle.db, stranger), true, {}, eventPage)).items).toEqual([]);
  });

  it("lists a group's issues each viewer may read: private projects for members, confidential issues for Reporters and their authors, nothing of the group next door", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const root = await createGroup(ctx, { name: "Open", path: `open-${uniqueSuffix()}`, visibility: "public" });
    const sub = await createGroup(ctx, { name: "Sub", path: "sub", parentId: root.group.id, visibility: "public" });
    const site = await createProject(ctx, { path: "site", namespaceId: root.group.id, visibility: "public" });
    const core = await createProject(ctx, { path: "core", namespaceId: sub.group.id, visibility: "public" });
    const vault = await createProject(ctx, { path: "vault", namespaceId: sub.group.id, visibility: "private" });
    const nextDoor = await createGroup(ctx, { name: "Next door", path: `next-${uniqueSuffix()}`, visibility: "public" });
    const elsewhere = await createProject(ctx, { path: "elsewhere", namespaceId: nextDoor.group.id, visibility: "public" });
    const [reporter, subGuest, author, stranger, admin] = await Promise.all([
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db, { isAdmin: true }),
    ]);
    await addGroupMember(ctx, String(root.group.id), { userId: reporter.id, accessLevel: 20 });
    await addGroupMember(ctx, String(sub.group.id), { userId: subGuest.id, accessLevel: 10 });
    // The author files as a Reporter and is a Guest afterwards: their own confidential issue stays theirs to read.
    await addMember(ctx, String(core.project.id), { userId: author.id, accessLevel: 20 });
    const file = (who: typeof owner, project: typeof site, title: string, confidential = false) =>
      createIssue(userContext(handle.db, who), String(project.project.id), { title, confidential });
    await file(owner, site, "Site bug");
    await file(owner, site, "Site secret", true);
    await file(author, core, "Core bug");
    await file(author, core, "Author's secret", true);
    await file(owner, vault, "Vault bug");
    await updateMember(ctx, String(core.project.id), author.id, { accessLevel: 10 });
    await file(owner, elsewhere, "Elsewhere bug");
    const titles = async (viewer: ReturnType<typeof userContext>) =>
      (await listGroupIssues(viewer, String(root.group.id), {}, page)).items.map((item) => item.issue.title);
    expect(await titles(anonymousTestContext(handle.db))).toEqual(["Core bug", "Site bug"]);
    expect(await titles(userContext(handle.db, stranger))).toEqual(["Core bug", "Site bug"]);
    expect(await titles(userContext(handle.db, author))).toEqual(["Author's secret", "Core bug", "Site bug"]);
    expect(await titles(userContext(handle.db, subGuest))).toEqual(["Vault bug", "Core bug", "Site bug"]);
    const everything = ["Vault bug", "Author's secret", "Core bug", "Site secret", "Site bug"];
    expect(await titles(userContext(handle.db, reporter))).toEqual(everything);
    expect(await titles(ctx)).toEqual(everything);
    expect(await titles(userContext(handle.db, admin))).toEqual(everything);
    // The subgroup's list holds its own projects' issues only.
    expect((await listGroupIssues(userContext(handle.db, reporter), String(sub.group.id), {}, page)).items.map((item) => item.issue.title)).toEqual([
      "Vault bug",
      "Author's secret",
      "Core bug",
    ]);
    expect((await listGroupIssues(userContext(handle.db, reporter), String(root.group.id), {}, page)).total).toBe(5);
  });

  it("lists groups as GitLab: a user's own by default, all they see with all_available, subgroups and descendants", async () => {
    const { ctx, owner, root, platform } = await nestedTree();
    const publicGroup = await createGroup(ctx, { name: "Everyone", path: `pub-${uniqueSuffix()}`, visibility: "public" });
    const stranger = await createTestUser(handle.db);
    const ids = (list: { items: { group: { id: number } }[] }) => list.items.map((view) => view.group.id);
    const strangerCtx = userContext(handle.db, stranger);
    expect(ids(await listGroups(strangerCtx, {}, page))).toEqual([]);
    expect(ids(await listGroups(strangerCtx, { allAvailable: true }, page))).toContain(publicGroup.group.id);
    expect(ids(await listGroups(strangerCtx, { allAvailable: true }, page))).not.toContain(root.group.id);
    expect(ids(await listGroups(anonymousTestContext(handle.db), { search: publicGroup.group.path }, page))).toEqual([publicGroup.group.id]);
    const ownerCtx = userContext(handle.db, owner);
    expect(ids(await listGroups(ownerCtx, { minAccessLevel: 10 }, page)).sort()).toEqual([root.group.id, platform.group.id, publicGroup.group.id].sort());
    expect(ids(await listGroups(ownerCtx, { topLevelOnly: true }, page)).sort()).toEqual([root.group.id, publicGroup.group.id].sort());
    // `owned` is GitLab's `owned_groups`: Owner memberships of one's own, while `min_access_level` reaches below them.
    const coOwner = await createTestUser(handle.db);
    await addGroupMember(ctx, String(root.group.id), { userId: coOwner.id, accessLevel: 50 });
    const coOwnerCtx = userContext(handle.db, coOwner);
    expect(ids(await listGroups(coOwnerCtx, { owned: true }, page))).toEqual([root.group.id]);
    expect(ids(await listGroups(coOwnerCtx, { minAccessLevel: 50 }, page)).sort()).toEqual([root.group.id, platform.group.id].sort());
    const deeper = await createGroup(ctx, { name: "Deeper", path: "deeper", parentId: platform.group.id });
    expect(ids(await listSubgroups(ownerCtx, String(root.group.id), "children", {}, page))).toEqual([platform.group.id]);
    expect(ids(await listSubgroups(ownerCtx, String(root.group.id), "descendants", {}, page)).sort()).toEqual([platform.group.id, deeper.group.id].sort());
    expect((await listNamespaces(ownerCtx, {}, page)).items.map((row) => row.fullPath)).toContain(deeper.group.fullPath);
    expect((await getNamespace(ownerCtx, owner.username)).kind).toBe("user");
    await expect(getNamespace(strangerCtx, root.group.fullPath)).rejects.toThrow(NotFoundError);
  });

  it("moves everything below a renamed group, and projects' old paths lead to them", async () => {
    const { ctx, root, api } = await nestedTree();
    const oldPath = `${root.group.path}/platform/api`;
    await updateGroup(ctx, String(root.group.id), { path: `${root.group.path}-renamed`, name: "Acme Corp" });
    const moved = await getVisibleProject(ctx, String(api.project.id));
    expect(moved.namespace.fullPath).toBe(`${root.group.path}-renamed/platform`);
    expect(projectNameWithNamespace(moved)).toBe("Acme Corp / Platform / api");
    expect(moved.namespace.traversalIds).toEqual(api.namespace.traversalIds);
    expect((await getVisibleProject(ctx, `${root.group.path}-renamed/platform/api`)).project.id).toBe(api.project.id);
    const moved404 = await apiFailure(getVisibleProject(ctx, oldPath));
    expect(moved404).toBeInstanceOf(ProjectMovedError);
    expect(moved404).toMatchObject({ projectId: api.project.id });
  });

  it("transfers a project: its path, git remote and events follow, the old path leads to it, and visibility is capped", async () => {
    const { ctx, owner, platform, api } = await nestedTree();
    const personal = await createProject(ctx, { path: `mine-${uniqueSuffix()}`, visibility: "public" });
    const oldPath = `${owner.username}/${personal.project.path}`;
    const details = await transferProject(ctx, String(personal.project.id), platform.group.fullPath);
    expect(details.view.namespace.id).toBe(platform.group.id);
    expect(details.view.project.visibility).toBe("private");
    expect((await getVisibleProject(ctx, `${platform.group.fullPath}/${personal.project.path}`)).project.id).toBe(personal.project.id);
    const error = await apiFailure(getVisibleProject(ctx, oldPath));
    expect(error).toBeInstanceOf(ProjectMovedError);
    expect(await handle.db.select({ id: events.id }).from(events).where(eq(events.projectId, personal.project.id))).toHaveLength(1);
    const stranger = await createTestUser(handle.db);
    await expect(transferProject(userContext(handle.db, stranger), String(personal.project.id), stranger.username)).rejects.toThrow(NotFoundError);
    const listed = await listGroupProjects(ctx, String(platform.group.id), false, {}, { kind: "offset", page });
    expect(listed.items.map((row) => row.view.project.id).sort()).toEqual([details.view.project.id, api.project.id].sort());
  });

  it("deletes a group with its subgroups and their projects; only Owners may", async () => {
    const { ctx, root, platform, api } = await nestedTree();
    const developer = await createTestUser(handle.db);
    await addGroupMember(ctx, String(root.group.id), { userId: developer.id, accessLevel: 40 });
    await expect(deleteGroup(userContext(handle.db, developer), String(root.group.id))).rejects.toThrow(ForbiddenError);
    const withSubgroups = await listGroupProjects(ctx, String(root.group.id), true, {}, { kind: "offset", page });
    expect(withSubgroups.items.map((row) => row.view.project.id)).toEqual([api.project.id]);
    expect((await listGroupProjects(ctx, String(root.group.id), false, {}, { kind: "offset", page })).items).toEqual([]);
    await deleteGroup(ctx, String(root.group.id));
    expect(await handle.db.select().from(namespaces).where(eq(namespaces.id, platform.group.id))).toEqual([]);
    expect(await handle.db.select().from(projects).where(eq(projects.id, api.project.id))).toEqual([]);
    expect(await handle.db.select().from(events).where(eq(events.projectId, api.project.id))).toEqual([]);
  });
});
