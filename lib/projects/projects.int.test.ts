import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { events, projects, users, type UserRow } from "@/lib/db/schema";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { listProjectEvents } from "@/lib/events/query";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { addMember } from "./members";
import { createProject, getVisibleProject, listProjects, listUserProjectDetails, type ProjectListFilters } from "./projects";

const page = { page: 1, perPage: 100, offset: 0 };

describe.each(testDatabases())("projects on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("creates a project in the caller's namespace, makes them Owner and records `created` in the same transaction", async () => {
    const owner = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Demo ${uniqueSuffix()}` });
    expect(view.namespace.path).toBe(owner.username);
    expect(view.accessLevel).toBe(50);
    const recorded = await handle.db.select().from(events).where(eq(events.projectId, view.project.id));
    expect(recorded).toMatchObject([{ action: "created", authorId: owner.id, targetType: null }]);
  });

  it("finds a project by id and by namespace/path, case-insensitively", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const view = await createProject(ctx, { path: `p-${uniqueSuffix()}` });
    expect((await getVisibleProject(ctx, String(view.project.id))).project.id).toBe(view.project.id);
    const reference = `${owner.username.toUpperCase()}/${view.project.path}`;
    expect((await getVisibleProject(ctx, reference)).project.id).toBe(view.project.id);
  });

  it("hides private projects from non-members as if they did not exist", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Secret ${uniqueSuffix()}` });
    await expect(getVisibleProject(userContext(handle.db, stranger), String(view.project.id))).rejects.toThrow(NotFoundError);
    await expect(getVisibleProject(anonymousTestContext(handle.db), String(view.project.id))).rejects.toThrow(NotFoundError);
  });

  it("refuses a second project with the same path in one namespace", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    await createProject(ctx, { path: "same" });
    await expect(createProject(ctx, { path: "SAME" })).rejects.toThrow(ValidationError);
  });

  async function externalUser(): Promise<UserRow> {
    const user = await createTestUser(handle.db);
    const [external] = await handle.db.update(users).set({ external: true }).where(eq(users.id, user.id)).returning();
    return external!;
  }

  it("external users see public projects and those they are members of, never other internal ones (lists, reads, events)", async () => {
    const owner = await createTestUser(handle.db);
    const ownerCtx = userContext(handle.db, owner);
    const marker = uniqueSuffix();
    const publicProject = await createProject(ownerCtx, { name: `Ext public ${marker}`, visibility: "public" });
    const internal = await createProject(ownerCtx, { name: `Ext internal ${marker}`, visibility: "internal" });
    const internalJoined = await createProject(ownerCtx, { name: `Ext internal joined ${marker}`, visibility: "internal" });
    const privateJoined = await createProject(ownerCtx, { name: `Ext private joined ${marker}` });
    const external = await externalUser();
    for (const joined of [internalJoined, privateJoined]) await addMember(ownerCtx, String(joined.project.id), { userId: external.id, accessLevel: 20 });
    const colleague = await createTestUser(handle.db);

    const visibleIds = async (user: UserRow) =>
      (await listProjects(userContext(handle.db, user), { search: marker }, page)).items.map((view) => view.project.id).sort((a, b) => a - b);
    const expectedForExternal = [publicProject, internalJoined, privateJoined].map((view) => view.project.id).sort((a, b) => a - b);
    expect(await visibleIds(external)).toEqual(expectedForExternal);
    expect(await visibleIds(colleague)).toEqual([publicProject, internal, internalJoined].map((view) => view.project.id).sort((a, b) => a - b));
    expect((await listProjects(userContext(handle.db, external), { search: marker }, page)).total).toBe(3);

    const externalCtx = userContext(handle.db, external);
    await expect(getVisibleProject(externalCtx, String(internal.project.id))).rejects.toThrow(NotFoundError);
    expect((await getVisibleProject(externalCtx, String(internalJoined.project.id))).project.id).toBe(internalJoined.project.id);
    const eventPage = { kind: "offset", page: { page: 1, perPage: 20, offset: 0 } } as const;
    await expect(listProjectEvents(externalCtx, String(internal.project.id), {}, eventPage)).rejects.toThrow(NotFoundError);
    expect((await listProjectEvents(userContext(handle.db, colleague), String(internal.project.id), {}, eventPage)).items).toHaveLength(1);
  });

  it("filters lists as GitLab does: owned, membership, min_access_level, visibility, activity and id bounds, issue trackers", async () => {
    const marker = uniqueSuffix();
    const alice = await createTestUser(handle.db);
    const bob = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const aliceCtx = userContext(handle.db, alice);
    const own = await createProject(aliceCtx, { name: `Filter own ${marker}`, visibility: "internal" });
    const bobs = await createProject(userContext(handle.db, bob), { name: `Filter bobs ${marker}`, visibility: "public" });
    const reporterOf = await createProject(userContext(handle.db, bob), { name: `Filter reporter ${marker}` });
    const hidden = await createProject(userContext(handle.db, bob), { name: `Filter hidden ${marker}` });
    await addMember(userContext(handle.db, bob), String(bobs.project.id), { userId: alice.id, accessLevel: 40 });
    await addMember(userContext(handle.db, bob), String(reporterOf.project.id), { userId: alice.id, accessLevel: 20 });
    await handle.db.update(projects).set({ issuesEnabled: false }).where(eq(projects.id, reporterOf.project.id));
    await handle.db.update(projects).set({ lastActivityAt: new Date("2001-01-01T00:00:00Z") }).where(eq(projects.id, bobs.project.id));

    const ids = async (filters: ProjectListFilters, ctx = aliceCtx) =>
      (await listProjects(ctx, { search: marker, sort: "asc", orderBy: "id", ...filters }, page)).items.map((view) => view.project.id);
    expect(await ids({})).toEqual([own.project.id, bobs.project.id, reporterOf.project.id]);
    expect(await ids({ owned: true })).toEqual([own.project.id]);
    expect(await ids({ membership: true })).toEqual([own.project.id, bobs.project.id, reporterOf.project.id]);
    expect(await ids({ minAccessLevel: 40 })).toEqual([own.project.id, bobs.project.id]);
    expect(await ids({ minAccessLevel: 30, owned: true })).toEqual([own.project.id]);
    expect(await ids({ visibility: "public" })).toEqual([bobs.project.id]);
    expect(await ids({ withIssuesEnabled: true })).toEqual([own.project.id, bobs.project.id]);
    expect(await ids({ idAfter: own.project.id, idBefore: reporterOf.project.id })).toEqual([bobs.project.id]);
    expect(await ids({ lastActivityAfter: new Date("2010-01-01T00:00:00Z") })).toEqual([own.project.id, reporterOf.project.id]);
    expect(await ids({ lastActivityBefore: new Date("2010-01-01T00:00:00Z") })).toEqual([bobs.project.id]);
    expect(await ids({ sort: "desc" })).toEqual([reporterOf.project.id, bobs.project.id, own.project.id]);
    // An admin sees everything but is a member of nothing: min_access_level counts roles, not admin rights.
    const adminCtx = userContext(handle.db, admin);
    expect(await ids({}, adminCtx)).toEqual([own.project.id, bobs.project.id, reporterOf.project.id, hidden.project.id]);
    expect(await ids({ minAccessLevel: 10 }, adminCtx)).toEqual([]);
    // Anonymous callers own and belong to nothing.
    const anonymous = anonymousTestContext(handle.db);
    expect(await ids({}, anonymous)).toEqual([bobs.project.id]);
    expect(await ids({ membership: true }, anonymous)).toEqual([]);
    // A user's projects: those in their namespace the caller can see, by id or username.
    const bobsProjects = await listUserProjectDetails(aliceCtx, bob.username.toUpperCase(), { search: marker }, { kind: "offset", page });
    expect(bobsProjects.items.map((details) => details.view.project.id).sort((a, b) => a - b)).toEqual([bobs.project.id, reporterOf.project.id]);
    expect((await listUserProjectDetails(anonymous, String(bob.id), {}, { kind: "offset", page })).items.map((details) => details.view.project.id)).toEqual([
      bobs.project.id,
    ]);
    await expect(listUserProjectDetails(aliceCtx, "no-such-user-anywhere", {}, { kind: "offset", page })).rejects.toThrow(NotFoundError);
  });

  it("searches as GitLab's fuzzy search: every term of three or more characters, else the whole query exactly", async () => {
    const marker = uniqueSuffix();
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const gateway = await createProject(ctx, { name: `API Gateway ${marker}`, description: "Routes requests" });
    const ui = await createProject(ctx, { name: "ui", path: `ui-${marker}` });
    const found = async (search: string, searchNamespaces = false) =>
      (await listProjects(ctx, { search, searchNamespaces, owned: true }, page)).items.map((view) => view.project.id);
    expect(await found(`gateway ${marker} api`)).toEqual([gateway.project.id]);
    expect(await found(`"api gateway" ${marker}`)).toEqual([gateway.project.id]);
    expect(await found("routes")).toEqual([gateway.project.id]);
    expect(await found("UI")).toEqual([ui.project.id]);
    expect(await found("u")).toEqual([]);
    expect(await found(`${owner.username}/ui-${marker}`)).toEqual([]);
    expect(await found(`${owner.username}/ui-${marker}`, true)).toEqual([ui.project.id]);
    expect(await found(`${owner.name} / API`, true)).toEqual([gateway.project.id]);
    // LIKE's wildcards are taken literally.
    expect(await found(`${marker}%`)).toEqual([]);
  });
});
