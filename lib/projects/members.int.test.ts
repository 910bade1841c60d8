import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { events, projectMembers, projects, type UserRow } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ParameterError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { addMember, getMember, listMembers, removeMember, updateMember } from "./members";
import { createProject, getProjectWithAbility, getVisibleProject, listProjects } from "./projects";

const page = { page: 1, perPage: 20, offset: 0 };

describe.each(testDatabases())("project members on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const at = (user: UserRow, when: Date) => ({ ...userContext(handle.db, user), now: when });

  async function projectOf(owner: UserRow) {
    const view = await createProject(userContext(handle.db, owner), { name: `Team ${uniqueSuffix()}` });
    return String(view.project.id);
  }

  async function memberEvents(projectId: string) {
    return handle.db
      .select({ action: events.action, authorId: events.authorId, targetType: events.targetType, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.projectId, Number(projectId)), sql`${events.action} in ('joined', 'left', 'expired')`))
      .orderBy(events.id);
  }

  it("adds a member and records `joined` authored by the member, at the same time", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const project = await projectOf(owner);
    const when = new Date("2030-01-02T03:04:05.678Z");
    const added = await addMember(at(owner, when), project, { userId: developer.id, accessLevel: 30, expiresAt: "2031-01-01" });
    expect(added.member).toMatchObject({ userId: developer.id, accessLevel: 30, expiresAt: "2031-01-01", createdById: owner.id, createdAt: when });
    expect(await memberEvents(project)).toEqual([{ action: "joined", authorId: developer.id, targetType: null, createdAt: when }]);
    const [row] = await handle.db.select().from(projects).where(eq(projects.id, Number(project)));
    expect(row?.lastActivityAt).toEqual(when);
    const listed = await listMembers(userContext(handle.db, developer), project, page);
    expect(listed.items.map((item) => [item.user.id, item.member.accessLevel])).toEqual([
      [owner.id, 50],
      [developer.id, 30],
    ]);
    expect(listed.total).toBe(2);
  });

  it("refuses duplicates (409) without a second event, unknown users (404) and unknown levels (400)", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const project = await projectOf(owner);
    const ctx = userContext(handle.db, owner);
    await addMember(ctx, project, { userId: developer.id, accessLevel: 30 });
    await expect(addMember(ctx, project, { userId: developer.id, accessLevel: 20 })).rejects.toThrow(ConflictError);
    await expect(addMember(ctx, project, { userId: developer.id, accessLevel: 20 })).rejects.toThrow("Member already exists");
    await expect(addMember(ctx, project, { userId: 2_000_000_000, accessLevel: 20 })).rejects.toThrow("404 User Not Found");
    await expect(addMember(ctx, project, { userId: developer.id, accessLevel: 35 })).rejects.toThrow(ParameterError);
    expect(await memberEvents(project)).toHaveLength(1);
  });

  it("writes the member and its event in one transaction: no event, no member", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const project = await projectOf(owner);
    await handle.db.execute(sql`alter table events rename to events_unavailable`);
    try {
      await expect(addMember(userContext(handle.db, owner), project, { userId: developer.id, accessLevel: 30 })).rejects.toThrow();
    } finally {
      await handle.db.execute(sql`alter table events_unavailable rename to events`);
    }
    const rows = await handle.db
      .select()
      .from(projectMembers)
      .where(and(eq(projectMembers.projectId, Number(project)), eq(projectMembers.userId, developer.id)));
    expect(rows).toEqual([]);
  });

  it("needs Maintainer or higher to manage members; only Owners grant, change or remove Owner", async () => {
    const owner = await createTestUser(handle.db);
    const maintainer = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const other = await createTestUser(handle.db);
    const coOwner = await createTestUser(handle.db);
    const project = await projectOf(owner);
    const asOwner = userContext(handle.db, owner);
    await addMember(asOwner, project, { userId: maintainer.id, accessLevel: 40 });
    await addMember(asOwner, project, { userId: developer.id, accessLevel: 30 });

    await expect(addMember(userContext(handle.db, developer), project, { userId: other.id, accessLevel: 10 })).rejects.toThrow(ForbiddenError);
    await expect(updateMember(userContext(handle.db, developer), project, maintainer.id, { accessLevel: 10 })).rejects.toThrow(ForbiddenError);
    await expect(removeMember(userContext(handle.db, developer), project, maintainer.id)).rejects.toThrow(ForbiddenError);
    // Not a member at all of a private project: it does not exist.
    await expect(addMember(userContext(handle.db, other), project, { userId: other.id, accessLevel: 50 })).rejects.toThrow(NotFoundError);

    const asMaintainer = userContext(handle.db, maintainer);
    await expect(addMember(asMaintainer, project, { userId: other.id, accessLevel: 50 })).rejects.toThrow(ForbiddenError);
    await addMember(asMaintainer, project, { userId: other.id, accessLevel: 10 });
    await expect(updateMember(asMaintainer, project, other.id, { accessLevel: 50 })).rejects.toThrow(ForbiddenError);
    expect((await updateMember(asMaintainer, project, other.id, { accessLevel: 20 })).member.accessLevel).toBe(20);

    await addMember(asOwner, project, { userId: coOwner.id, accessLevel: 50 });
    await expect(updateMember(asMaintainer, project, coOwner.id, { accessLevel: 30 })).rejects.toThrow(ForbiddenError);
    await expect(removeMember(asMaintainer, project, coOwner.id)).rejects.toThrow(ForbiddenError);
    expect((await getMember(asOwner, project, coOwner.id)).member.accessLevel).toBe(50);
    // With two Owners, an Owner may demote the other.
    expect((await updateMember(asOwner, project, coOwner.id, { accessLevel: 40 })).member.accessLevel).toBe(40);
  });

  it("the last Owner can neither leave nor be demoted; with a second Owner they can", async () => {
    const owner = await createTestUser(handle.db);
    const second = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const project = await projectOf(owner);
    const asOwner = userContext(handle.db, owner);
    const lastOwner = "403 Forbidden - a project's last Owner cannot be removed or demoted";
    await expect(removeMember(asOwner, project, owner.id)).rejects.toThrow(lastOwner);
    await expect(updateMember(asOwner, project, owner.id, { accessLevel: 40 })).rejects.toThrow(lastOwner);
    await expect(removeMember(userContext(handle.db, admin), project, owner.id)).rejects.toThrow(lastOwner);

    await addMember(asOwner, project, { userId: second.id, accessLevel: 50 });
    await removeMember(asOwner, project, owner.id);
    const left = await listMembers(userContext(handle.db, second), project, page);
    expect(left.items.map((item) => item.user.id)).toEqual([second.id]);
  });

  it("removing (or leaving) records `left` authored by the member", async () => {
    const owner = await createTestUser(handle.db);
    const removed = await createTestUser(handle.db);
    const leaver = await createTestUser(handle.db);
    const project = await projectOf(owner);
    const t1 = new Date("2030-02-01T00:00:00.000Z");
    const t2 = new Date("2030-02-02T00:00:00.000Z");
    const t3 = new Date("2030-02-03T00:00:00.000Z");
    await addMember(at(owner, t1), project, { userId: removed.id, accessLevel: 20 });
    await addMember(at(owner, t1), project, { userId: leaver.id, accessLevel: 10 });
    await removeMember(at(owner, t2), project, removed.id);
    await removeMember(at(leaver, t3), project, leaver.id);
    expect(await memberEvents(project)).toEqual([
      { action: "joined", authorId: removed.id, targetType: null, createdAt: t1 },
      { action: "joined", authorId: leaver.id, targetType: null, createdAt: t1 },
      { action: "left", authorId: removed.id, targetType: null, createdAt: t2 },
      { action: "left", authorId: leaver.id, targetType: null, createdAt: t3 },
    ]);
    await expect(getMember(userContext(handle.db, owner), project, removed.id)).rejects.toThrow("404 Member Not Found");
    await expect(removeMember(userContext(handle.db, owner), project, removed.id)).rejects.toThrow("404 Member Not Found");
    expect(await memberEvents(project)).toHaveLength(4);
  });

  it("end dates: none in the past (GitLab's message), set and cleared by PUT, and the role ends with that day", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const project = await projectOf(owner);
    const jan10 = new Date("2030-01-10T12:00:00.000Z");
    const pastDate = (error: unknown) =>
      error instanceof ValidationError && JSON.stringify(error.body()) === '{"message":{"expires_at":["cannot be a date in the past"]}}';
    await expect(addMember(at(owner, jan10), project, { userId: developer.id, accessLevel: 30, expiresAt: "2030-01-09" })).rejects.toSatisfy(pastDate);
    expect(await memberEvents(project)).toEqual([]);
    await addMember(at(owner, jan10), project, { userId: developer.id, accessLevel: 30, expiresAt: "2030-01-10" });
    await expect(updateMember(at(owner, jan10), project, developer.id, { accessLevel: 30, expiresAt: "2030-01-01" })).rejects.toSatisfy(pastDate);

    // Expiring today: the member is a stranger to the private project at once, on every verb that checks the role.
    await expect(getProjectWithAbility(at(developer, jan10), project, "createIssue")).rejects.toBeInstanceOf(NotFoundError);
    expect((await listProjects(at(developer, jan10), { membership: true }, page)).total).toBe(0);
    // PUT renews it, to the end of the 14th; the 15th, it is over again.
    const renewed = await updateMember(at(owner, jan10), project, developer.id, { accessLevel: 20, expiresAt: "2030-01-15" });
    expect(renewed.member).toMatchObject({ accessLevel: 20, expiresAt: "2030-01-15" });
    expect((await getProjectWithAbility(at(developer, new Date("2030-01-14T23:59:59.999Z")), project, "createIssue")).accessLevel).toBe(20);
    expect((await listProjects(at(developer, new Date("2030-01-14T23:59:59.999Z")), { membership: true }, page)).total).toBe(1);
    await expect(getVisibleProject(at(developer, new Date("2030-01-15T00:00:00.000Z")), project)).rejects.toBeInstanceOf(NotFoundError);
    // Leaving out expires_at keeps it; null clears it.
    expect((await updateMember(at(owner, jan10), project, developer.id, { accessLevel: 30 })).member.expiresAt).toBe("2030-01-15");
    expect((await updateMember(at(owner, jan10), project, developer.id, { accessLevel: 30, expiresAt: null })).member.expiresAt).toBeNull();
    expect((await getVisibleProject(at(developer, new Date("2031-01-01T00:00:00Z")), project)).accessLevel).toBe(30);
  });

  it("an expired Maintainer manages nothing; an expired Owner does not count as the project's Owner", async () => {
    const owner = await createTestUser(handle.db);
    const maintainer = await createTestUser(handle.db);
    const coOwner = await createTestUser(handle.db);
    const other = await createTestUser(handle.db);
    const project = await createProject(userContext(handle.db, owner), { name: `Open ${uniqueSuffix()}`, visibility: "public" });
    const reference = String(project.project.id);
    const jan1 = new Date("2030-01-01T00:00:00.000Z");
    const feb1 = new Date("2030-02-01T00:00:00.000Z");
    await addMember(at(owner, jan1), reference, { userId: maintainer.id, accessLevel: 40, expiresAt: "2030-01-20" });
    await addMember(at(owner, jan1), reference, { userId: coOwner.id, accessLevel: 50, expiresAt: "2030-01-20" });
    await expect(addMember(at(maintainer, feb1), reference, { userId: other.id, accessLevel: 10 })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(removeMember(at(maintainer, feb1), reference, owner.id)).rejects.toBeInstanceOf(ForbiddenError);
    // Once the co-owner's membership has ended, the first Owner is the last one: they can neither step down nor leave,
    const lastOwner = "403 Forbidden - a project's last Owner cannot be removed or demoted";
    await expect(updateMember(at(owner, feb1), reference, owner.id, { accessLevel: 40 })).rejects.toThrow(lastOwner);
    await expect(removeMember(at(owner, feb1), reference, owner.id)).rejects.toThrow(lastOwner);
    // nor give themselves an end date, which they could while the co-owner's membership ran.
    await expect(updateMember(at(owner, feb1), reference, owner.id, { accessLevel: 50, expiresAt: "2030-03-01" })).rejects.toThrow(lastOwner);
    expect((await updateMember(at(owner, jan1), reference, owner.id, { accessLevel: 50, expiresAt: "2030-03-01" })).member.expiresAt).toBe("2030-03-01");
    await updateMember(at(owner, jan1), reference, owner.id, { accessLevel: 50, expiresAt: null });

    // Removing an expired membership is recorded as GitLab records it: `expired`, not `left`.
    await removeMember(at(owner, feb1), reference, coOwner.id);
    expect((await memberEvents(reference)).map((event) => [event.action, event.authorId])).toEqual([
      ["joined", maintainer.id],
      ["joined", coOwner.id],
      ["expired", coOwner.id],
    ]);
  });

  it("members of public projects are visible to anyone; of private ones only to members", async () => {
    const owner = await createTestUser(handle.db);
    const visible = await createProject(userContext(handle.db, owner), { name: `Open ${uniqueSuffix()}`, visibility: "public" });
    const hidden = await projectOf(owner);
    expect((await listMembers(anonymousTestContext(handle.db), String(visible.project.id), page)).total).toBe(1);
    await expect(listMembers(anonymousTestContext(handle.db), hidden, page)).rejects.toThrow("404 Project Not Found");
  });

  it("lists members matching a user search or a list of user ids, with totals to match", async () => {
    const owner = await createTestUser(handle.db);
    const marker = uniqueSuffix();
    const found = await createTestUser(handle.db, { username: `findme_${marker}` });
    const other = await createTestUser(handle.db);
    const project = await projectOf(owner);
    for (const user of [found, other]) await addMember(userContext(handle.db, owner), project, { userId: user.id, accessLevel: 30 });
    const ids = async (filters: Parameters<typeof listMembers>[3]) => {
      const listed = await listMembers(userContext(handle.db, other), project, page, filters);
      expect(listed.total).toBe(listed.items.length);
      return listed.items.map((item) => item.user.id);
    };
    expect(await ids({})).toEqual([owner.id, found.id, other.id]);
    expect(await ids({ query: `FINDME_${marker}` })).toEqual([found.id]);
    // Another member's address matches only whole, as in every user search.
    expect(await ids({ query: found.email.slice(0, found.email.indexOf("@") + 3) })).toEqual([]);
    expect(await ids({ query: found.email })).toEqual([found.id]);
    expect(await ids({ userIds: [other.id, owner.id, 2_147_483_647] })).toEqual([owner.id, other.id]);
  });
});
