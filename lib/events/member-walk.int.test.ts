import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { ProjectVisibility, UserRow } from "@/lib/db/schema";
import { createGroup } from "@/lib/groups/groups";
import { addGroupMember } from "@/lib/groups/members";
import { createIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { listOwnEvents, type EventFilters, type EventList, type EventPage } from "./query";

// `scope=all` answers a page from a walk of the instance's newest events when that walk is exact, and from the reader's
// projects one by one otherwise. Small pages of a reader with a few dozen projects take the walk; a burst of newer
// events in projects they are not in makes it fall short on the first pages, which then read project by project; an
// order over both, and pages large enough that the walk is never tried, must all give the same rows as the rules.

const visibilities: ProjectVisibility[] = ["private", "public", "internal"];

describe.each(testDatabases())("scope=all on $name: the walk and the per-project reads agree with the rules", ({ open }) => {
  const handle = databaseForSuite(open);

  async function setUp() {
    const [owner, reader, guest] = await Promise.all([
      createTestUser(handle.db, { isAdmin: true }),
      createTestUser(handle.db),
      createTestUser(handle.db),
    ]);
    const ownerCtx = userContext(handle.db, owner);
    const { group } = await createGroup(ownerCtx, { name: `Walk ${uniqueSuffix()}`, path: `walk-${uniqueSuffix()}`, visibility: "public" });
    await addGroupMember(ownerCtx, String(group.id), { userId: reader.id, accessLevel: 30 });
    await addGroupMember(ownerCtx, String(group.id), { userId: guest.id, accessLevel: 10 });
    /** Each reader's role in each of their projects (the reference's), inherited or direct. */
    const roles = new Map<number, Map<number, number>>([
      [owner.id, new Map()],
      [reader.id, new Map()],
      [guest.id, new Map()],
    ]);
    const memberProjects: number[] = [];
    for (let index = 0; index < 24; index++) {
      const inGroup = index < 8;
      const visibility = visibilities[index % 3]!;
      const view = await createProject(ownerCtx, { name: `Walked ${index} ${uniqueSuffix()}`, visibility, ...(inGroup ? { namespaceId: group.id } : {}) });
      const projectId = view.project.id;
      memberProjects.push(projectId);
      roles.get(owner.id)!.set(projectId, 50);
      if (inGroup) {
        roles.get(reader.id)!.set(projectId, 30);
        roles.get(guest.id)!.set(projectId, 10);
      } else {
        const readerLevel = index % 2 === 0 ? 10 : 20;
        await addMember(ownerCtx, String(projectId), { userId: reader.id, accessLevel: readerLevel });
        await addMember(ownerCtx, String(projectId), { userId: guest.id, accessLevel: 20 });
        roles.get(reader.id)!.set(projectId, readerLevel);
        roles.get(guest.id)!.set(projectId, 20);
      }
      // Confidential issues by each reader (theirs to see whatever their role), one by the owner, internal notes.
      if (index % 3 === 0) {
        const author = index % 2 === 0 ? reader : guest;
        const { issue } = await createIssue(ownerCtx, String(projectId), { title: "Secret", confidential: true });
        // Written by a reader whatever their role (a Guest who wrote it as a Reporter, say).
        await handle.db.execute(sql`update issues set author_id = ${author.id} where id = ${issue.id}`);
        await createNote(ownerCtx, String(projectId), issue.iid, { body: "on a secret" });
      }
      if (index % 4 === 1) {
        const { issue } = await createIssue(ownerCtx, String(projectId), { title: "Open" });
        await createNote(ownerCtx, String(projectId), issue.iid, { body: "internal", internal: true });
        await createIssue(ownerCtx, String(projectId), { title: "Owner's secret", confidential: true });
      }
    }
    // Older pushes in every member project (dense among the oldest events), and a burst of newer events in projects
    // neither reader is in, so the newest events hold nothing of theirs.
    await handle.db.execute(sql`insert into events (project_id, author_id, action, created_at)
      select project_id, ${owner.id}, 'pushed', now() - make_interval(mins => (60 + position * 3 + copy)::integer)
      from unnest(${sql.raw(`array[${memberProjects.join(",")}]::integer[]`)}) with ordinality as member(project_id, position), generate_series(0, 2) copy`);
    const outside: number[] = [];
    for (let index = 0; index < 3; index++) outside.push((await createProject(ownerCtx, { name: `Outside ${index} ${uniqueSuffix()}`, visibility: "public" })).project.id);
    for (const projectId of outside) roles.get(owner.id)!.set(projectId, 50);
    await handle.db.execute(sql`insert into events (project_id, author_id, action, created_at)
      select ${sql.raw(`(array[${outside.join(",")}])`)}[1 + n % 3], ${owner.id}, 'pushed', now() + make_interval(secs => n::integer)
      from generate_series(1, 150) n`);
    return { owner, reader, guest, roles };
  }

  /** What a reader's `scope=all` holds, decided row by row from the rules, in the list's order. */
  async function expectedIds(user: UserRow, roles: Map<number, number>, filters: EventFilters) {
    const rows = (await handle.db.execute(sql`select e.id, e.project_id, e.audience, e.action, p.visibility, i.author_id as issue_author_id
      from events e inner join projects p on p.id = e.project_id left join issues i on i.id = e.issue_id
      order by e.created_at ${sql.raw(filters.sort === "asc" ? "asc" : "desc")}, e.id ${sql.raw(filters.sort === "asc" ? "asc" : "desc")}`)) as unknown as
      | { rows: Record<string, unknown>[] }
      | Record<string, unknown>[];
    const list = Array.isArray(rows) ? rows : rows.rows;
    return list
      .filter((row) => {
        const level = roles.get(Number(row.project_id));
        if (level === undefined) return false;
        if (filters.action && row.action !== filters.action) return false;
        const eventAudience = Number(row.audience);
        return (
          level >= 20 ||
          eventAudience === 0 ||
          (eventAudience === 1 && row.visibility !== "private") ||
          (eventAudience === 2 && Number(row.issue_author_id) === user.id)
        );
      })
      .map((row) => Number(row.id));
  }

  async function keysetIds(list: (page: EventPage) => Promise<EventList>, perPage: number, ascending: boolean): Promise<number[]> {
    const ids: number[] = [];
    let cursor: number | undefined;
    for (;;) {
      const page = await list({ kind: "keyset", perPage, ...(ascending ? { idAfter: cursor } : { idBefore: cursor }) });
      ids.push(...page.items.map((item) => item.id));
      if (!page.hasMore) return ids;
      cursor = page.items.at(-1)!.id;
    }
  }

  async function offsetIds(list: (page: EventPage) => Promise<EventList>, perPage: number, expectedTotal: number): Promise<number[]> {
    const ids: number[] = [];
    for (let number = 1; ; number++) {
      const page = await list({ kind: "offset", page: { page: number, perPage, offset: (number - 1) * perPage } });
      expect(page.total).toBe(expectedTotal);
      ids.push(...page.items.map((item) => item.id));
      if (!page.hasMore) return ids;
    }
  }

  it("gives every reader the rows, order and totals of the rules, by keyset and offset pages of every size", async () => {
    const { reader, guest, roles } = await setUp();
    for (const user of [reader, guest]) {
      const ctx = userContext(handle.db, user);
      for (const filters of [{}, { sort: "asc" }, { action: "pushed" }] satisfies EventFilters[]) {
        const expected = await expectedIds(user, roles.get(user.id)!, filters);
        expect(expected.length).toBeGreaterThan(40);
        const list = (page: EventPage) => listOwnEvents(ctx, true, filters, page);
        for (const perPage of [1, 2, 20]) {
          const label = `${user.id === reader.id ? "reader" : "guest"} ${JSON.stringify(filters)} per page ${perPage}`;
          expect(await keysetIds(list, perPage, filters.sort === "asc"), label).toEqual(expected);
          if (perPage > 1) expect(await offsetIds(list, perPage, expected.length), label).toEqual(expected);
        }
      }
    }
  }, 120_000);

  it("gives an administrator the events of their own projects, all of them, by keyset and offset pages", async () => {
    const { owner, roles } = await setUp();
    const ctx = userContext(handle.db, owner);
    for (const filters of [{}, { sort: "asc" }] satisfies EventFilters[]) {
      const expected = await expectedIds(owner, roles.get(owner.id)!, filters);
      const list = (page: EventPage) => listOwnEvents(ctx, true, filters, page);
      for (const perPage of [1, 20]) {
        expect(await keysetIds(list, perPage, filters.sort === "asc")).toEqual(expected);
        if (perPage > 1) expect(await offsetIds(list, perPage, expected.length)).toEqual(expected);
      }
    }
  }, 120_000);
});
