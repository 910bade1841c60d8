import { eq, gt } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Ctx } from "@/lib/context";
import { projectMembers, projects, users, type UserRow } from "@/lib/db/schema";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { addMember } from "./members";
import { createProject, listProjectDetails, listProjects, projectOrderFields, type ProjectListFilters } from "./projects";

/**
 * Project lists read each visibility level the caller may see as its own part, in the list's order, and merge them
 * (lib/projects/projects.ts): whatever the viewer and the order, the merged pages must be exactly the visible projects,
 * in order, without overlap or gap, with exact totals.
 */
describe.each(testDatabases())("project lists by visibility part on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function world() {
    const owner = await createTestUser(handle.db, { isAdmin: false });
    const ownerCtx = userContext(handle.db, owner);
    const member = await createTestUser(handle.db);
    const expired = await createTestUser(handle.db);
    const [external] = await handle.db.update(users).set({ external: true }).where(eq(users.id, (await createTestUser(handle.db)).id)).returning();
    const stranger = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const marker = uniqueSuffix();
    const make = (name: string, visibility: "public" | "internal" | "private") => createProject(ownerCtx, { name: `${name} ${marker}`, visibility });
    // Names and creation order differ, so every order gives its own sequence.
    const created = {
      publicB: await make("Bravo", "public"),
      privateMember: await make("Alpha", "private"),
      internalA: await make("Delta", "internal"),
      privateExpired: await make("Charlie", "private"),
      internalMember: await make("Foxtrot", "internal"),
      privateHidden: await make("Echo", "private"),
      publicA: await make("Golf", "public"),
    };
    const first = created.publicB.project.id - 1;
    for (const view of [created.privateMember, created.internalMember]) {
      await addMember(ownerCtx, String(view.project.id), { userId: member.id, accessLevel: 20 });
      await addMember(ownerCtx, String(view.project.id), { userId: external!.id, accessLevel: 10 });
    }
    await addMember(ownerCtx, String(created.privateExpired.project.id), { userId: expired.id, accessLevel: 30 });
    // A membership whose last day is over grants nothing, until the scheduled job removes it.
    await handle.db.update(projectMembers).set({ expiresAt: "2000-01-01" }).where(eq(projectMembers.userId, expired.id));
    const id = (name: keyof typeof created) => created[name].project.id;
    const everything = Object.keys(created) as (keyof typeof created)[];
    const visible: Record<string, { ctx: Ctx; sees: (keyof typeof created)[] }> = {
      admin: { ctx: userContext(handle.db, admin), sees: everything },
      owner: { ctx: ownerCtx, sees: everything },
      member: { ctx: userContext(handle.db, member), sees: ["publicB", "privateMember", "internalA", "internalMember", "publicA"] },
      expired: { ctx: userContext(handle.db, expired), sees: ["publicB", "internalA", "internalMember", "publicA"] },
      external: { ctx: userContext(handle.db, external as UserRow), sees: ["publicB", "privateMember", "internalMember", "publicA"] },
      stranger: { ctx: userContext(handle.db, stranger), sees: ["publicB", "internalA", "internalMember", "publicA"] },
      anonymous: { ctx: anonymousTestContext(handle.db), sees: ["publicB", "publicA"] },
    };
    return { first, created, id, visible };
  }

  /** Every page of the list, `perPage` at a time, with each page's total. */
  async function pagesOf(ctx: Ctx, filters: ProjectListFilters, perPage: number) {
    const ids: number[] = [];
    const totals: (number | null)[] = [];
    for (let page = 1; page <= 10; page += 1) {
      const result = await listProjects(ctx, filters, { page, perPage, offset: (page - 1) * perPage });
      ids.push(...result.items.map((view) => view.project.id));
      totals.push(result.total);
      if (!result.hasNext) break;
    }
    return { ids, totals };
  }

  it("every viewer's pages, in every order and direction, are exactly the projects they may see", async () => {
    const { first, id, visible } = await world();
    type Name = Parameters<typeof id>[0];
    // As stored now: events since their creation (members joining) moved their last activity.
    const rows = new Map((await handle.db.select().from(projects).where(gt(projects.id, first))).map((row) => [row.id, row]));
    const sortKey = (name: Name, field: (typeof projectOrderFields)[number]) => {
      const project = rows.get(id(name))!;
      const value = { id: project.id, name: project.name, path: project.path, created_at: project.createdAt, updated_at: project.updatedAt, last_activity_at: project.lastActivityAt }[field];
      return value instanceof Date ? value.getTime() : value;
    };
    for (const [viewer, { ctx, sees }] of Object.entries(visible)) {
      for (const orderBy of projectOrderFields) {
        for (const sort of ["asc", "desc"] as const) {
          const expected = [...sees]
            .sort((a, b) => {
              const [x, y] = [sortKey(a, orderBy), sortKey(b, orderBy)];
              const byKey = x < y ? -1 : x > y ? 1 : id(a) - id(b);
              return sort === "asc" ? byKey : -byKey;
            })
            .map(id);
          const { ids, totals } = await pagesOf(ctx, { idAfter: first, orderBy, sort }, 2);
          expect(ids, `${viewer} by ${orderBy} ${sort}`).toEqual(expected);
          // The first page is counted (exactly: the list is short); the last tells its total itself.
          expect(totals.every((total) => total === expected.length), `${viewer} totals`).toBe(true);
        }
      }
    }
  });

  it("keyset pages by id walk the same projects in both directions, from id_after or id_before", async () => {
    const { first, id, visible } = await world();
    for (const { ctx, sees } of Object.values(visible)) {
      for (const descending of [false, true]) {
        const walked: number[] = [];
        let position: ProjectListFilters = { idAfter: first };
        for (let step = 0; step < 10; step += 1) {
          const filters: ProjectListFilters = { ...position, orderBy: "id", sort: descending ? "desc" : "asc" };
          const found = await listProjectDetails(ctx, filters, { kind: "keyset", perPage: 3 });
          expect("total" in found).toBe(false);
          walked.push(...found.items.map((details) => details.view.project.id));
          const last = found.items.at(-1)?.view.project.id;
          if (!found.hasNext || last === undefined) break;
          position = descending ? { idAfter: first, idBefore: last } : { idAfter: last };
        }
        const expected = sees.map(id).sort((a, b) => (descending ? b - a : a - b));
        expect(walked).toEqual(expected);
      }
    }
  });

  it("filters that keep a few projects (membership, ownership, a user's projects, searches) see by the same rules", async () => {
    const { first, created, id, visible } = await world();
    const member = visible.member!.ctx;
    expect((await listProjects(member, { membership: true, idAfter: first, orderBy: "id", sort: "asc" }, { page: 1, perPage: 20, offset: 0 })).items.map((view) => view.project.id)).toEqual([
      id("privateMember"),
      id("internalMember"),
    ]);
    const expiredMember = visible.expired!.ctx;
    expect((await listProjects(expiredMember, { membership: true, idAfter: first }, { page: 1, perPage: 20, offset: 0 })).total).toBe(0);
    const marker = created.publicA.project.name.split(" ")[1]!;
    const searched = await listProjects(visible.external!.ctx, { search: marker, orderBy: "name", sort: "asc" }, { page: 1, perPage: 20, offset: 0 });
    expect(searched.items.map((view) => view.project.id)).toEqual([id("privateMember"), id("publicB"), id("internalMember"), id("publicA")]);
    expect(searched.total).toBe(4);
  });
});
