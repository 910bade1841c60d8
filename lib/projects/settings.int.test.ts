import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { alerts, events, issues, projectMembers, projects, type UserRow } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { repositoryPath } from "@/lib/git/repositories";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { addMember } from "./members";
import { can } from "./policy";
import { createProject, getProjectDetails, getVisibleProject, listProjects } from "./projects";
import { deleteProject, setProjectArchived, updateProject } from "./settings";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
const repositoriesRoot = vi.hoisted(() => {
  const root = `${process.env.TMPDIR ?? "/tmp"}/settings-test-repositories-${process.pid}-${Date.now()}`;
  process.env.REPOSITORIES_DIR = root;
  return root;
});

const page = { page: 1, perPage: 100, offset: 0 };

describe.each(testDatabases())("project settings on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  /** A project with an Owner and one member of each role below. */
  async function team(visibility: "private" | "internal" | "public" = "private") {
    const owner = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Settings ${uniqueSuffix()}`, visibility });
    const reference = String(view.project.id);
    const members: Record<"maintainer" | "developer" | "reporter" | "guest", UserRow> = {
      maintainer: await createTestUser(handle.db),
      developer: await createTestUser(handle.db),
      reporter: await createTestUser(handle.db),
      guest: await createTestUser(handle.db),
    };
    const levels = { maintainer: 40, developer: 30, reporter: 20, guest: 10 };
    for (const [role, user] of Object.entries(members) as [keyof typeof levels, UserRow][]) {
      await addMember(userContext(handle.db, owner), reference, { userId: user.id, accessLevel: levels[role] });
    }
    return { owner, ...members, view, reference, as: (user: UserRow) => userContext(handle.db, user) };
  }

  const eventCount = async (projectId: number) => (await handle.db.select().from(events).where(eq(events.projectId, projectId))).length;

  it("Maintainers change the name, path, description and issue tracker, with no event; the visibility is the Owner's", async () => {
    const t = await team();
    const before = await eventCount(t.view.project.id);
    const path = `renamed-${uniqueSuffix()}`;
    const updated = await updateProject(t.as(t.maintainer), t.reference, { name: "Renamed", path, description: "About", issuesEnabled: false });
    expect(updated.view.project).toMatchObject({ name: "Renamed", path, description: "About", issuesEnabled: false, visibility: "private" });
    expect(updated.view.project.updatedAt.getTime()).toBeGreaterThanOrEqual(t.view.project.updatedAt.getTime());
    expect((await getVisibleProject(t.as(t.owner), `${t.owner.username}/${path}`)).project.id).toBe(t.view.project.id);
    expect(await eventCount(t.view.project.id)).toBe(before);

    await expect(updateProject(t.as(t.maintainer), t.reference, { visibility: "public" })).rejects.toThrow(ForbiddenError);
    await expect(updateProject(t.as(t.developer), t.reference, { description: "x" })).rejects.toThrow(ForbiddenError);
    await expect(updateProject(t.as(await createTestUser(handle.db)), t.reference, { description: "x" })).rejects.toThrow(NotFoundError);
    expect((await updateProject(t.as(t.owner), t.reference, { visibility: "public" })).view.project.visibility).toBe("public");
    const [row] = await handle.db.select().from(projects).where(eq(projects.id, t.view.project.id));
    expect(row).toMatchObject({ name: "Renamed", path, description: "About", issuesEnabled: false, visibility: "public" });
  });

  it("refuses a path that is taken or malformed, with GitLab's messages, and changes nothing", async () => {
    const t = await team();
    const other = await createProject(t.as(t.owner), { path: `taken-${uniqueSuffix()}` });
    await expect(updateProject(t.as(t.owner), t.reference, { path: other.project.path.toUpperCase() })).rejects.toMatchObject({
      errors: { path: ["has already been taken"] },
    });
    await expect(updateProject(t.as(t.owner), t.reference, { path: "-bad", name: "" })).rejects.toThrow(ValidationError);
    const [row] = await handle.db.select().from(projects).where(eq(projects.id, t.view.project.id));
    expect(row?.path).toBe(t.view.project.path);
  });

  it("a new default branch must exist; choosing one moves the repository's HEAD with it", async () => {
    const t = await team();
    await pushBranches(t.view.project.id, { main: 1, develop: 2 });
    for (const missing of ["nope", "develop~1", "main^"]) {
      await expect(updateProject(t.as(t.maintainer), t.reference, { defaultBranch: missing })).rejects.toMatchObject({
        errors: { base: [`Could not change HEAD: branch '${missing}' does not exist`] },
      });
    }
    const updated = await updateProject(t.as(t.maintainer), t.reference, { defaultBranch: "develop" });
    expect(updated.view.project.defaultBranch).toBe("develop");
    const head = execFileSync("git", ["symbolic-ref", "HEAD"], { cwd: repositoryPath(t.view.project.id) }).toString().trim();
    expect(head).toBe("refs/heads/develop");
  });

  it("statistics count the default branch's commits and the repository's bytes, for Reporters and above", async () => {
    const t = await team();
    await pushBranches(t.view.project.id, { main: 3, other: 1 });
    await updateProject(t.as(t.owner), t.reference, { defaultBranch: "main" });
    const bytes = execFileSync("find", [repositoryPath(t.view.project.id), "-type", "f", "-printf", "%s\\n"])
      .toString()
      .trim()
      .split("\n")
      .reduce((sum, size) => sum + Number(size), 0);
    const details = await getProjectDetails(t.as(t.reporter), t.reference, { statistics: true });
    expect(details.statistics).toEqual({ commitCount: 3, repositorySize: bytes });
    expect(bytes).toBeGreaterThan(0);
    expect((await getProjectDetails(t.as(t.guest), t.reference, { statistics: true })).statistics).toBeNull();
    expect((await getProjectDetails(t.as(t.reporter), t.reference)).statistics).toBeNull();
    // A project nobody pushed to has no repository yet: nothing to count.
    const empty = await createProject(t.as(t.owner), { name: `Empty ${uniqueSuffix()}` });
    expect((await getProjectDetails(t.as(t.owner), String(empty.project.id), { statistics: true })).statistics).toEqual({
      commitCount: 0,
      repositorySize: 0,
    });
  });

  it("counts open issues, the confidential ones only for those who may read them", async () => {
    const t = await team("public");
    const issue = (iid: number, values: { state?: "opened" | "closed"; confidential?: boolean }) =>
      handle.db.insert(issues).values({ projectId: t.view.project.id, iid, title: `Issue ${iid}`, authorId: t.owner.id, ...values });
    await issue(1, {});
    await issue(2, { confidential: true });
    await issue(3, { state: "closed" });
    expect((await getProjectDetails(t.as(t.reporter), t.reference)).openIssuesCount).toBe(2);
    expect((await getProjectDetails(t.as(t.guest), t.reference)).openIssuesCount).toBe(1);
    expect((await getProjectDetails(anonymousTestContext(handle.db), t.reference)).openIssuesCount).toBe(1);
  });

  it("archiving is the Owner's; an archived project is read-only and listed unless archived=false", async () => {
    const t = await team();
    await expect(setProjectArchived(t.as(t.maintainer), t.reference, true)).rejects.toThrow(ForbiddenError);
    const archived = await setProjectArchived(t.as(t.owner), t.reference, true);
    expect(archived.view.project.archived).toBe(true);
    // Archiving twice changes nothing.
    expect((await setProjectArchived(t.as(t.owner), t.reference, true)).view.project.archived).toBe(true);
    const asDeveloper = await getVisibleProject(t.as(t.developer), t.reference);
    expect(can(asDeveloper, "pushCode")).toBe(false);
    expect(can(asDeveloper, "createIssue")).toBe(false);
    expect(can(asDeveloper, "readCode")).toBe(true);

    const listed = async (archivedFilter?: boolean) =>
      (await listProjects(t.as(t.owner), { owned: true, archived: archivedFilter }, page)).items.map((view) => view.project.id);
    const other = await createProject(t.as(t.owner), { name: `Active ${uniqueSuffix()}` });
    expect(await listed()).toEqual(expect.arrayContaining([t.view.project.id, other.project.id]));
    expect(await listed(true)).toEqual([t.view.project.id]);
    expect(await listed(false)).not.toContain(t.view.project.id);
    expect(await listed(false)).toContain(other.project.id);

    const unarchived = await setProjectArchived(t.as(t.owner), t.reference, false);
    expect(unarchived.view.project.archived).toBe(false);
    expect(can(await getVisibleProject(t.as(t.developer), t.reference), "pushCode")).toBe(true);
  });

  it("deleting is the Owner's: the project goes with its members, issues, alerts, events and repository", async () => {
    const t = await team();
    const projectId = t.view.project.id;
    await pushBranches(projectId, { main: 1 });
    await handle.db.insert(issues).values({ projectId, iid: 1, title: "Doomed", authorId: t.owner.id });
    await handle.db
      .insert(alerts)
      .values({ projectId, iid: 1, title: "Doomed alert", severity: "critical", startedAt: new Date(), payload: {} });
    // The owner's activity elsewhere stays.
    const elsewhere = await createProject(t.as(t.owner), { name: `Elsewhere ${uniqueSuffix()}` });
    expect(existsSync(repositoryPath(projectId))).toBe(true);

    await expect(deleteProject(t.as(t.maintainer), t.reference)).rejects.toThrow(ForbiddenError);
    await deleteProject(t.as(t.owner), t.reference);

    expect(await handle.db.select().from(projects).where(eq(projects.id, projectId))).toEqual([]);
    expect(await handle.db.select().from(projectMembers).where(eq(projectMembers.projectId, projectId))).toEqual([]);
    expect(await handle.db.select().from(issues).where(eq(issues.projectId, projectId))).toEqual([]);
    expect(await handle.db.select().from(alerts).where(eq(alerts.projectId, projectId))).toEqual([]);
    expect(await eventCount(projectId)).toBe(0);
    expect(existsSync(repositoryPath(projectId))).toBe(false);
    await expect(getVisibleProject(t.as(t.owner), t.reference)).rejects.toThrow(NotFoundError);
    const kept = await handle.db
      .select()
      .from(events)
      .where(and(eq(events.projectId, elsewhere.project.id), eq(events.authorId, t.owner.id)));
    expect(kept).toHaveLength(1);
  });
});
