import { describe, expect, it } from "vitest";
import { asc, desc, eq, sql } from "drizzle-orm";
import { authorEventCounts, eventAudiences, events, projectEventCounts, type ProjectVisibility, type UserRow } from "@/lib/db/schema";
import { OffsetLimitExceededError } from "@/lib/errors";
import { createIssue, deleteIssue, updateIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { addMember, updateMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { deleteProject } from "@/lib/projects/settings";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import type { Ctx } from "@/lib/context";
import { eventQueryOf, eventQueryParams } from "./api";
import { parseParams, readQuery } from "@/lib/api/request";
import { listOwnEvents, listProjectEvents, listUserEvents, type EventFilters, type EventList, type EventPage } from "./query";
import { pruneEventsBefore } from "./retention";
import { recordEvent } from "./record";

const offsetPage = (page: number, perPage = 100): EventPage => ({ kind: "offset", page: { page, perPage, offset: (page - 1) * perPage } });

describe.each(testDatabases())("event audiences, maintained counts and every reader's totals on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const contextOf = (user: UserRow | null): Ctx => (user ? userContext(handle.db, user) : anonymousTestContext(handle.db));

  /** The maintained counts of a project, as rows, beside the same counts computed from its events. */
  async function countsOf(projectId: number) {
    const maintained = await handle.db
      .select({ audience: projectEventCounts.audience, action: projectEventCounts.action, targetType: projectEventCounts.targetType, count: projectEventCounts.eventCount })
      .from(projectEventCounts)
      .where(eq(projectEventCounts.projectId, projectId))
      .orderBy(asc(projectEventCounts.audience), asc(projectEventCounts.action), asc(projectEventCounts.targetType));
    const counted = await handle.db
      .select({
        audience: events.audience,
        action: events.action,
        targetType: sql<string>`coalesce(${events.targetType}, '')`,
        count: sql<number>`count(*)`.mapWith(Number),
      })
      .from(events)
      .where(eq(events.projectId, projectId))
      .groupBy(events.audience, events.action, sql`coalesce(${events.targetType}, '')`)
      .orderBy(asc(events.audience), asc(events.action), sql`coalesce(${events.targetType}, '')`);
    return { maintained: maintained.filter((row) => row.count !== 0), counted };
  }

  /** The maintained counts of each author in a project, beside the same counts computed from its events. */
  async function authorCountsOf(projectId: number) {
    const maintained = await handle.db
      .select({
        authorId: authorEventCounts.authorId,
        audience: authorEventCounts.audience,
        action: authorEventCounts.action,
        targetType: authorEventCounts.targetType,
        count: authorEventCounts.eventCount,
      })
      .from(authorEventCounts)
      .where(eq(authorEventCounts.projectId, projectId))
      .orderBy(asc(authorEventCounts.authorId), asc(authorEventCounts.audience), asc(authorEventCounts.action), asc(authorEventCounts.targetType));
    const targetType = sql<string>`coalesce(${events.targetType}, '')`;
    const counted = await handle.db
      .select({ authorId: events.authorId, audience: events.audience, action: events.action, targetType, count: sql<number>`count(*)`.mapWith(Number) })
      .from(events)
      .where(eq(events.projectId, projectId))
      .groupBy(events.authorId, events.audience, events.action, targetType)
      .orderBy(asc(events.authorId), asc(events.audience), asc(events.action), targetType);
    return { maintained: maintained.filter((row) => row.count !== 0), counted };
  }

  async function expectCountsInStep(projectId: number) {
    const { maintained, counted } = await countsOf(projectId);
    expect(maintained).toEqual(counted);
    const byAuthor = await authorCountsOf(projectId);
    expect(byAuthor.maintained).toEqual(byAuthor.counted);
  }

  /** A public or private project with an owner, a reporter, a guest who wrote a confidential issue while a reporter, and an outsider. */
  async function team(visibility: ProjectVisibility) {
    const [owner, reporter, guest, outsider, admin, external] = await Promise.all([
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db),
      createTestUser(handle.db, { isAdmin: true }),
      createTestUser(handle.db),
    ]);
    await handle.db.execute(sql`update users set external = true where id = ${external.id}`);
    const externalUser = { ...external, external: true };
    const ownerCtx = contextOf(owner);
    const view = await createProject(ownerCtx, { name: `Audiences ${uniqueSuffix()}`, visibility });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: reporter.id, accessLevel: 20 });
    await addMember(ownerCtx, project, { userId: guest.id, accessLevel: 20 });
    const { issue: open } = await createIssue(ownerCtx, project, { title: "Open" });
    const { issue: secret } = await createIssue(ownerCtx, project, { title: "Secret", confidential: true });
    const { issue: guestsSecret } = await createIssue(contextOf(guest), project, { title: "Guest's secret", confidential: true });
    await updateMember(ownerCtx, project, guest.id, { accessLevel: 10 });
    await createNote(ownerCtx, project, open.iid, { body: "public comment" });
    await createNote(ownerCtx, project, open.iid, { body: "internal comment", internal: true });
    await createNote(ownerCtx, project, secret.iid, { body: "secret comment" });
    await createNote(ownerCtx, project, guestsSecret.iid, { body: "on the guest's secret" });
    await recordEvent(handle.db, { projectId: view.project.id, authorId: owner.id, action: "pushed", data: { push_data: { action: "pushed" } }, createdAt: new Date() });
    await updateIssue(ownerCtx, project, open.iid, { stateEvent: "close" });
    return { view, project, owner, reporter, guest, outsider, admin, external: externalUser, open, secret, guestsSecret };
  }

  /** Every event of a list, by walking its keyset pages. */
  async function walk(list: (page: EventPage) => Promise<EventList>, perPage = 3): Promise<number[]> {
    const ids: number[] = [];
    let idBefore: number | undefined;
    for (;;) {
      const page = await list({ kind: "keyset", perPage, idBefore });
      ids.push(...page.items.map((item) => item.id));
      if (!page.hasMore) return ids;
      idBefore = page.items.at(-1)!.id;
    }
  }

  /** What a reader may see of the project's events, decided row by row from the rules (the reference). */
  async function expectedIds(projectId: number, rule: (event: { audience: number; issueAuthorId: number | null }) => boolean, filters: EventFilters = {}) {
    const rows = await handle.db
      .select({ id: events.id, createdAt: events.createdAt, audience: events.audience, action: events.action, targetType: events.targetType, issueAuthorId: sql<number | null>`(select author_id from issues where id = ${events.issueId})` })
      .from(events)
      .where(eq(events.projectId, projectId))
      .orderBy(desc(events.createdAt), desc(events.id));
    return rows
      .filter((row) => rule(row) && (!filters.action || row.action === filters.action) && (!filters.targetType || row.targetType?.toLowerCase() === filters.targetType))
      .map((row) => row.id);
  }

  it("sets each event's audience, and moves an issue's events with its confidentiality", async () => {
    const { view, project, owner, open, secret } = await team("public");
    const audiences = async () =>
      handle.db.select({ action: events.action, targetType: events.targetType, issueId: events.issueId, internal: events.internal, audience: events.audience }).from(events).where(eq(events.projectId, view.project.id));
    for (const event of await audiences()) {
      const expected = event.internal
        ? eventAudiences.internalNote
        : event.issueId !== null && event.issueId !== open.id
          ? eventAudiences.confidentialIssue
          : event.action === "pushed"
            ? eventAudiences.codeReaders
            : eventAudiences.everyone;
      expect(event.audience, JSON.stringify(event)).toBe(expected);
    }
    await expectCountsInStep(view.project.id);

    const ownerCtx = contextOf(owner);
    await updateIssue(ownerCtx, project, open.iid, { confidential: true });
    await updateIssue(ownerCtx, project, secret.iid, { confidential: false });
    const after = await audiences();
    // The open issue's events are confidential now, except the internal note's, which stays internal; the secret's are
    // everyone's.
    const ofOpen = after.filter((event) => event.issueId === open.id);
    expect(ofOpen.length).toBe(4);
    for (const event of ofOpen) expect(event.audience).toBe(event.internal ? eventAudiences.internalNote : eventAudiences.confidentialIssue);
    const ofSecret = after.filter((event) => event.issueId === secret.id);
    expect(ofSecret.length).toBe(2);
    for (const event of ofSecret) expect(event.audience).toBe(eventAudiences.everyone);
    await expectCountsInStep(view.project.id);
  });

  it("keeps the counts in step with deletions: an issue's events, retention and the project itself", async () => {
    const { view, project, owner, secret } = await team("private");
    await deleteIssue(contextOf(owner), project, secret.iid);
    await expectCountsInStep(view.project.id);
    await handle.db.update(events).set({ createdAt: new Date("2001-01-01T00:00:00Z") }).where(eq(events.action, "commented"));
    expect(await pruneEventsBefore(handle.db, new Date("2002-01-01T00:00:00Z"), { batchSize: 2, pauseMs: 0 })).toBeGreaterThan(0);
    await expectCountsInStep(view.project.id);
    await deleteProject(contextOf(owner), project);
    expect(await handle.db.select().from(projectEventCounts).where(eq(projectEventCounts.projectId, view.project.id))).toEqual([]);
    expect(await handle.db.select().from(authorEventCounts).where(eq(authorEventCounts.projectId, view.project.id))).toEqual([]);
  });

  for (const visibility of ["public", "private"] as const) {
    it(`each reader of a ${visibility} project pages through exactly what they may see, with an exact X-Total`, async () => {
      const t = await team(visibility);
      const projectId = t.view.project.id;
      const everyone = () => true;
      const readers: [string, UserRow | null, (event: { audience: number; issueAuthorId: number | null }) => boolean][] = [
        ["owner", t.owner, everyone],
        ["admin", t.admin, everyone],
        ["reporter", t.reporter, everyone],
        [
          "guest",
          t.guest,
          (event) =>
            event.audience === 0 || (event.audience === 1 && visibility !== "private") || (event.audience === 2 && event.issueAuthorId === t.guest.id),
        ],
      ];
      if (visibility === "public") {
        const outside = (event: { audience: number }) => event.audience <= 1;
        readers.push(["outsider", t.outsider, outside], ["external", t.external, outside], ["anonymous", null, outside]);
      }
      for (const filters of [{}, { action: "commented" as const }, { targetType: "note" as const }, { after: "2001-01-01" }]) {
        for (const [name, reader, rule] of readers) {
          const ctx = contextOf(reader);
          const expected = await expectedIds(projectId, rule, filters);
          const label = `${name} ${JSON.stringify(filters)}`;
          const first = await listProjectEvents(ctx, t.project, filters, offsetPage(1));
          expect(first.items.map((item) => item.id), label).toEqual(expected);
          expect(first.total, label).toBe(expected.length);
          expect(await walk((page) => listProjectEvents(ctx, t.project, filters, page)), label).toEqual(expected);
          // Small offset pages agree with the keyset walk.
          const second = await listProjectEvents(ctx, t.project, filters, offsetPage(2, 2));
          expect(second.items.map((item) => item.id), label).toEqual(expected.slice(2, 4));
          expect(second.total, label).toBe(expected.length);
          expect(second.hasMore, label).toBe(expected.length > 4);
        }
      }
    });
  }

  it("an author's events and scope=all show each reader what their role shows, with exact totals", async () => {
    const t = await team("public");
    const projectId = t.view.project.id;
    const guestSees = (event: { audience: number; issueAuthorId: number | null }) =>
      event.audience <= 1 || (event.audience === 2 && event.issueAuthorId === t.guest.id);
    const ownerEventIds = async (rule: (event: { audience: number; issueAuthorId: number | null }) => boolean) => {
      const authored = new Set(
        (await handle.db.select({ id: events.id }).from(events).where(eq(events.authorId, t.owner.id))).map((row) => row.id),
      );
      return (await expectedIds(projectId, rule)).filter((id) => authored.has(id));
    };
    for (const [name, reader, rule] of [
      ["anonymous", null, (event: { audience: number }) => event.audience <= 1],
      ["guest", t.guest, guestSees],
      ["reporter", t.reporter, () => true],
    ] as const) {
      const ctx = contextOf(reader);
      const expected = await ownerEventIds(rule);
      const first = await listUserEvents(ctx, String(t.owner.id), {}, offsetPage(1));
      expect(first.items.map((item) => item.id), name).toEqual(expected);
      expect(first.total, name).toBe(expected.length);
      expect(await walk((page) => listUserEvents(ctx, String(t.owner.id), {}, page)), name).toEqual(expected);
    }
    // scope=all for the guest: the project's events as their role shows them.
    const guestAll = await expectedIds(projectId, guestSees);
    const mine = await listOwnEvents(contextOf(t.guest), true, {}, offsetPage(1));
    expect(mine.items.map((item) => item.id)).toEqual(guestAll);
    expect(mine.total).toBe(guestAll.length);
    expect(await walk((page) => listOwnEvents(contextOf(t.guest), true, {}, page))).toEqual(guestAll);
    const reporterAll = await listOwnEvents(contextOf(t.reporter), true, { action: "commented" }, offsetPage(1));
    expect(reporterAll.total).toBe((await expectedIds(projectId, () => true, { action: "commented" })).length);
  });

  it("past 10,000 events: maintained totals stay exact, counted ones (date filters) are left out", async () => {
    const owner = await createTestUser(handle.db);
    const view = await createProject(contextOf(owner), { name: `Busy ${uniqueSuffix()}`, visibility: "public" });
    await handle.db.execute(sql`insert into events (project_id, author_id, action, created_at)
      select ${view.project.id}, ${owner.id}, 'joined', now() - n * interval '1 second' from generate_series(1, 10050) n`);
    for (const reader of [owner, null]) {
      const ctx = contextOf(reader);
      const all = await listProjectEvents(ctx, String(view.project.id), {}, offsetPage(1, 20));
      expect(all).toMatchObject({ total: 10_051, hasMore: true });
      const joined = await listProjectEvents(ctx, String(view.project.id), { action: "joined" }, offsetPage(1, 20));
      expect(joined.total).toBe(10_050);
      const dated = await listProjectEvents(ctx, String(view.project.id), { after: "2001-01-01" }, offsetPage(2, 20));
      expect(dated.items).toHaveLength(20);
      expect(dated).toMatchObject({ total: null, hasMore: true });
      const authored = await listUserEvents(ctx, String(owner.id), {}, offsetPage(1, 20));
      expect(authored).toMatchObject({ total: 10_051, hasMore: true });
      const authoredDated = await listUserEvents(ctx, String(owner.id), { after: "2001-01-01" }, offsetPage(1, 20));
      expect(authoredDated).toMatchObject({ total: null, hasMore: true });
    }
    await expectCountsInStep(view.project.id);
  });

  it("refuses offset pages past the offset limit, and scope=all offset pages past what the reader's projects allow", async () => {
    const parse = (search: string) => eventQueryOf(parseParams(eventQueryParams, readQuery(new URL(`http://localhost/api/v4/events?${search}`))));
    expect(() => parse("page=2501&per_page=20")).toThrow(OffsetLimitExceededError);
    expect(() => parse("page=2501&per_page=20")).toThrow(
      "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Event. Remaining records can be retrieved using keyset pagination.",
    );
    expect(parse("page=2500&per_page=20").page).toEqual({ kind: "offset", page: { page: 2500, perPage: 20, offset: 49_980 } });
    expect(parse("pagination=keyset&per_page=20&page=9999").page).toMatchObject({ kind: "keyset", perPage: 20 });

    const member = await createTestUser(handle.db);
    for (let i = 0; i < 11; i += 1) await createProject(contextOf(member), { name: `Many ${uniqueSuffix()}` });
    // Eleven projects: 500,000 rows / 11 = 45,454 rows of reach.
    await expect(listOwnEvents(contextOf(member), true, {}, offsetPage(2300, 20))).rejects.toThrow("maximum allowed offset of 45454");
    expect(await listOwnEvents(contextOf(member), true, {}, offsetPage(2272, 20))).toEqual({ items: [], total: 11, hasMore: false, offsetReach: 50_000 });
    // A page with a next one says how far offset pages reach, so its next link can lead on to keyset pages past it.
    const first = await listOwnEvents(contextOf(member), true, {}, offsetPage(1, 5));
    expect(first).toMatchObject({ total: 11, hasMore: true, offsetReach: 45_454 });
    expect(first.items).toHaveLength(5);
    expect((await listOwnEvents(contextOf(member), false, {}, offsetPage(2300, 20))).items).toEqual([]);
  });
});
