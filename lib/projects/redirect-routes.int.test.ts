import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { redirectRoutes, type UserRow } from "@/lib/db/schema";
import { NotFoundError, ProjectMovedError } from "@/lib/errors";
import { listProjectEvents } from "@/lib/events/query";
import { authorizeGitAccess } from "@/lib/git/access";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, apiFailure, createTestUser, testPassword, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { updateUserAsAdmin } from "@/lib/users/admin";
import { insertUser, renamedUsername } from "@/lib/users/users";
import { createProject, getProjectDetails, getVisibleProject } from "./projects";
import { deleteProject, updateProject } from "./settings";

const firstEvents = { kind: "offset", page: { page: 1, perPage: 20, offset: 0 } } as const;

describe.each(testDatabases())("redirect routes on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const as = (user: UserRow) => userContext(handle.db, user);

  async function ownedProject(visibility: "private" | "public" = "private") {
    const owner = await createTestUser(handle.db);
    const path = `project-${uniqueSuffix()}`;
    const view = await createProject(as(owner), { name: path, path, visibility });
    return { owner, view, fullPath: `${owner.username}/${path}` };
  }

  /** The move a lookup by `reference` reports: where the project went, or a failure of the test. */
  async function moveOf(promise: Promise<unknown>): Promise<{ projectId: number; fullPath: string }> {
    const error = await apiFailure(promise);
    expect(error).toBeInstanceOf(ProjectMovedError);
    const { projectId, fullPath } = error as ProjectMovedError;
    return { projectId, fullPath };
  }

  it("a renamed project's old path leads to it, in any case, for whoever may see it; others get a plain 404", async () => {
    const { owner, view, fullPath } = await ownedProject();
    const newPath = `renamed-${uniqueSuffix()}`;
    await updateProject(as(owner), String(view.project.id), { path: newPath });
    const moved = { projectId: view.project.id, fullPath: `${owner.username}/${newPath}` };

    expect(await moveOf(getVisibleProject(as(owner), fullPath))).toEqual(moved);
    expect(await moveOf(getVisibleProject(as(owner), fullPath.toUpperCase()))).toEqual(moved);
    expect(await moveOf(getProjectDetails(as(owner), fullPath))).toEqual(moved);
    expect(await moveOf(listProjectEvents(as(owner), fullPath, {}, firstEvents))).toEqual(moved);
    expect((await getVisibleProject(as(owner), moved.fullPath)).project.id).toBe(view.project.id);

    // Someone who may not see the private project learns nothing of where it went.
    const stranger = await createTestUser(handle.db);
    for (const ctx of [as(stranger), anonymousTestContext(handle.db)]) {
      const error = await apiFailure(getVisibleProject(ctx, fullPath));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).not.toBeInstanceOf(ProjectMovedError);
    }
  });

  it("a new project at the old path takes it over; renaming back takes the path back; a change of case leaves none", async () => {
    const { owner, view, fullPath } = await ownedProject();
    const oldPath = view.project.path;
    const reference = String(view.project.id);
    await updateProject(as(owner), reference, { path: `${oldPath}-b` });
    await updateProject(as(owner), reference, { path: oldPath });
    // Back at its first path: that path is its own again, and the one it left leads to it.
    expect((await getVisibleProject(as(owner), fullPath)).project.id).toBe(view.project.id);
    expect(await moveOf(getVisibleProject(as(owner), `${fullPath}-b`))).toEqual({ projectId: view.project.id, fullPath });

    await updateProject(as(owner), reference, { path: `${oldPath}-c` });
    const successor = await createProject(as(owner), { name: "Successor", path: oldPath });
    expect((await getVisibleProject(as(owner), fullPath)).project.id).toBe(successor.project.id);
    expect(await moveOf(getVisibleProject(as(owner), `${fullPath}-b`))).toEqual({ projectId: view.project.id, fullPath: `${fullPath}-c` });

    await updateProject(as(owner), reference, { path: `${oldPath}-C` });
    const rows = await handle.db.select({ path: redirectRoutes.path }).from(redirectRoutes).where(eq(redirectRoutes.projectId, view.project.id));
    expect(rows.map((row) => row.path).sort()).toEqual([`${fullPath}-b`]);
  });

  it("a deleted project's old paths lead nowhere", async () => {
    const { owner, view, fullPath } = await ownedProject();
    await updateProject(as(owner), String(view.project.id), { path: `gone-${uniqueSuffix()}` });
    await deleteProject(as(owner), String(view.project.id));
    const error = await apiFailure(getVisibleProject(as(owner), fullPath));
    expect(error).not.toBeInstanceOf(ProjectMovedError);
    expect(error.status).toBe(404);
  });

  it("a renamed user's projects and page keep their old addresses until someone takes the username", async () => {
    const admin = as(await createTestUser(handle.db, { isAdmin: true }));
    const { owner, view, fullPath } = await ownedProject("public");
    const oldUsername = owner.username;
    const newUsername = `renamed_${uniqueSuffix()}`;
    await updateUserAsAdmin(admin, owner.id, { username: newUsername });

    const moved = { projectId: view.project.id, fullPath: `${newUsername}/${view.project.path}` };
    expect(await moveOf(getVisibleProject(anonymousTestContext(handle.db), fullPath))).toEqual(moved);
    expect(await renamedUsername(admin, oldUsername.toUpperCase())).toBe(newUsername);

    // A project renamed after its namespace keeps both old paths leading to it.
    await updateProject(as({ ...owner, username: newUsername }), String(view.project.id), { path: `later-${uniqueSuffix()}` });
    const { project } = await getVisibleProject(as(owner), String(view.project.id));
    const latest = { projectId: view.project.id, fullPath: `${newUsername}/${project.path}` };
    expect(await moveOf(getVisibleProject(as(owner), fullPath))).toEqual(latest);
    expect(await moveOf(getVisibleProject(as(owner), moved.fullPath))).toEqual(latest);

    // A new account with the old username takes the name and every path below it.
    await insertUser(handle.db, { username: oldUsername, email: `taker_${uniqueSuffix()}@example.com`, name: "Taker", password: testPassword });
    expect(await renamedUsername(admin, oldUsername)).toBeNull();
    expect(await apiFailure(getVisibleProject(as(owner), fullPath))).not.toBeInstanceOf(ProjectMovedError);
  });

  it("git clients reach a project by an old path, with the same checks as by its path", async () => {
    const { owner, view, fullPath } = await ownedProject();
    await updateProject(as(owner), String(view.project.id), { path: `git-${uniqueSuffix()}` });
    const { token } = await insertPersonalAccessToken(handle.db, owner.id, { name: "git", scopes: ["write_repository"] }, new Date());
    const authorization = `Basic ${Buffer.from(`${owner.username}:${token}`).toString("base64")}`;
    for (const operation of ["pull", "push"] as const) {
      const access = await authorizeGitAccess(handle.db, { projectReference: fullPath, operation, authorization, now: new Date() });
      expect(access.view.project.id).toBe(view.project.id);
    }
    // Without credentials, a private project by its old path asks for them, as by its path.
    await expect(authorizeGitAccess(handle.db, { projectReference: fullPath, operation: "pull", authorization: null, now: new Date() })).rejects.toMatchObject({
      status: 401,
    });
  });
});
