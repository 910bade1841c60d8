import { describe, expect, it } from "vitest";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { addMemberByUsername, listMembers } from "./members";
import { createProject, listUserProjects } from "./projects";

const firstPage = { page: 1, perPage: 20, offset: 0 };

describe.each(testDatabases())("verbs behind the project pages on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("adds a member by username, case-insensitively, and refuses duplicates and unknown names", async () => {
    const owner = await createTestUser(handle.db);
    const colleague = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const view = await createProject(ctx, { name: `Team ${uniqueSuffix()}` });
    const reference = String(view.project.id);

    const added = await addMemberByUsername(ctx, reference, { username: colleague.username.toUpperCase(), accessLevel: 30 });
    expect(added.user.id).toBe(colleague.id);
    expect(added.member.accessLevel).toBe(30);
    const { items } = await listMembers(ctx, reference, firstPage);
    expect(items.map((item) => item.user.id).sort()).toEqual([owner.id, colleague.id].sort());

    await expect(addMemberByUsername(ctx, reference, { username: colleague.username, accessLevel: 30 })).rejects.toThrow(ConflictError);
    await expect(addMemberByUsername(ctx, reference, { username: `nobody_${uniqueSuffix()}`, accessLevel: 30 })).rejects.toThrow(
      ValidationError,
    );
  });

  it("does not tell non-maintainers whether a username exists", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Team ${uniqueSuffix()}`, visibility: "internal" });
    const asDeveloper = userContext(handle.db, developer);
    await expect(addMemberByUsername(asDeveloper, String(view.project.id), { username: `nobody_${uniqueSuffix()}`, accessLevel: 10 })).rejects.toThrow(
      ForbiddenError,
    );
  });

  it("lists a user's projects that the caller can see, and 404s for unknown users", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const ownerCtx = userContext(handle.db, owner);
    const privateView = await createProject(ownerCtx, { name: `Private ${uniqueSuffix()}` });
    const internalView = await createProject(ownerCtx, { name: `Internal ${uniqueSuffix()}`, visibility: "internal" });
    const publicView = await createProject(ownerCtx, { name: `Public ${uniqueSuffix()}`, visibility: "public" });

    const ids = async (ctx: Parameters<typeof listUserProjects>[0]) =>
      (await listUserProjects(ctx, owner.username, firstPage)).items.map((item) => item.project.id);
    expect(await ids(ownerCtx)).toEqual([publicView.project.id, internalView.project.id, privateView.project.id]);
    expect(await ids(userContext(handle.db, stranger))).toEqual([publicView.project.id, internalView.project.id]);
    expect(await ids(anonymousTestContext(handle.db))).toEqual([publicView.project.id]);
    expect((await listUserProjects(anonymousTestContext(handle.db), owner.username, firstPage)).total).toBe(1);

    await expect(listUserProjects(ownerCtx, `nobody_${uniqueSuffix()}`, firstPage)).rejects.toThrow(NotFoundError);
  });

  it("lists the projects a user is a member of next to their own, as far as the caller can see them", async () => {
    const member = await createTestUser(handle.db);
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const ownerCtx = userContext(handle.db, owner);
    const privateTeam = await createProject(ownerCtx, { name: `Private team ${uniqueSuffix()}` });
    const publicTeam = await createProject(ownerCtx, { name: `Public team ${uniqueSuffix()}`, visibility: "public" });
    await createProject(ownerCtx, { name: `Not theirs ${uniqueSuffix()}`, visibility: "public" });
    for (const view of [privateTeam, publicTeam]) {
      await addMemberByUsername(ownerCtx, String(view.project.id), { username: member.username, accessLevel: 30 });
    }
    const personal = await createProject(userContext(handle.db, member), { name: `Personal ${uniqueSuffix()}`, visibility: "public" });

    const ids = async (ctx: Parameters<typeof listUserProjects>[0]) =>
      (await listUserProjects(ctx, member.username, firstPage)).items.map((item) => item.project.id);
    expect(await ids(userContext(handle.db, member))).toEqual([personal.project.id, publicTeam.project.id, privateTeam.project.id]);
    expect(await ids(ownerCtx)).toEqual([personal.project.id, publicTeam.project.id, privateTeam.project.id]);
    expect(await ids(userContext(handle.db, stranger))).toEqual([personal.project.id, publicTeam.project.id]);
    expect((await listUserProjects(anonymousTestContext(handle.db), member.username, firstPage)).total).toBe(2);
  });
});
