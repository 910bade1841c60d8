import { describe, expect, it } from "vitest";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { authorEventCounts, events, projectEventCounts, type UserRow } from "@/lib/db/schema";
import { NotFoundError, OffsetLimitExceededError } from "@/lib/errors";
import { createGroup, deleteGroup } from "@/lib/groups/groups";
import { addGroupMember, removeGroupMember } from "@/lib/groups/members";
import { createIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { addMember, updateMember } from "@/lib/projects/members";
import { runMembershipExpiry } from "@/lib/projects/expired-members";
import { createProject } from "@/lib/projects/projects";
import type { Ctx } from "@/lib/context";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import type { FeedEvent } from "./describe";
import { listGroupEvents, listOwnEvents, listProjectEvents, listUserEvents, type EventFilters, type EventList, type EventPage } from "./query";
import { recordEvent } from "./record";
import { pruneEventsBefore } from "./retention";

const everything: EventPage = { kind: "offset", page: { page: 1, perPage: 100, offset: 0 } };

function shown(list: EventList): FeedEvent[] {
  return list.items.map((item) => JSON.parse(item.json) as FeedEvent);
}

describe.each(testDatabases())("a group's activity on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  /**
   * `acme` (public) holds `site` (public) and two subgroups: `platform` (public, with `tools`, internal, and `core`,
   * private) and `secret` (private, with `vault`). Each project has an issue; `site` and `core` a confidential one
   * too; `site` an internal note; `site`, `tools` and `core` a push. Members: a Guest and a Reporter of `acme`, a
   * Reporter of `platform`; and a Guest of `acme` who is a Reporter of `core` itself.
   */
  async function tree() {
    const owner = await createTestUser(handle.db);
    const topGuest = await createTestUser(handle.db);
    const topReporter = await createTestUser(handle.db);
    const subReporter = await createTestUser(handle.db);
    const mixed = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    // One context, one instant: events keep the order they are written in (ids break the tie).
    const ctx = userContext(handle.db, owner);
    const acme = await createGroup(ctx, { name: "Acme", path: `acme-${uniqueSuffix()}`, visibility: "public" });
    const platform = await createGroup(ctx, { name: "Platform", path: "platform", parentId: acme.group.id, visibility: "public" });
    const secret = await createGroup(ctx, { name: "Secret", path: "secret", parentId: acme.group.id, visibility: "private" });
    const site = await createProject(ctx, { path: "site", namespaceId: acme.group.id, visibility: "public" });
    const tools = await createProject(ctx, { path: "tools", namespaceId: platform.group.id, visibility: "internal" });
    const core = await createProject(ctx, { path: "core", namespaceId: platform.group.id, visibility: "private" });
    const vault = await createProject(ctx, { path: "vault", namespaceId: secret.group.id, visibility: "private" });
    await addGroupMember(ctx, String(acme.group.id), { userId: topGuest.id, accessLevel: 10 });
    await addGroupMember(ctx, String(acme.group.id), { userId: topReporter.id, accessLevel: 20 });
    await addGroupMember(ctx, String(platform.group.id), { userId: subReporter.id, accessLevel: 20 });
    await addGroupMember(ctx, String(acme.group.id), { userId: mixed.id, accessLevel: 10 });
    await addMember(ctx, String(core.project.id), { userId: mixed.id, accessLevel: 20 });
    const siteIssue = await createIssue(ctx, String(site.project.id), { title: "Site issue" });
    await createIssue(ctx, String(site.project.id), { title: "Site secret", confidential: true });
    await createNote(ctx, String(site.project.id), siteIssue.issue.iid, { body: "between us", internal: true });
    await createIssue(ctx, String(tools.project.id), { title: "Tools issue" });
    await createIssue(ctx, String(core.project.id), { title: "Core issue" });
    await createIssue(ctx, String(core.project.id), { title: "Core secret", confidential: true });
    await createIssue(ctx, String(vault.project.id), { title: "Vault issue" });
    for (const { project } of [site, tools, core]) await recordEvent(handle.db, { projectId: project.id, authorId: owner.id, action: "pushed", createdAt: ctx.now });
    const paths = new Map([site, tools, core, vault].map((view) => [view.project.id, `${view.namespace.fullPath}/${view.project.path}`]));
    return { owner, topGuest, topReporter, subReporter, mixed, stranger, admin, ctx, acme, platform, secret, site, tools, core, vault, paths };
  }

  type Tree = Awaited<ReturnType<typeof tree>>;

  function contextOf(user: UserRow | null, now?: Date): Ctx {
    const ctx = user ? userContext(handle.db, user) : anonymousTestContext(handle.db);
    return now ? { ...ctx, now } : ctx;
  }

  /** Each event of the list, oldest first, as “where: action title”, the group's or project's path relative to the top group. */
  async function activity(t: Tree, viewer: UserRow | null, filters: EventFilters = {}, reference = String(t.acme.group.id)) {
    const list = await listGroupEvents(contextOf(viewer), reference, { sort: "asc", ...filters }, everything);
    const top = `${t.acme.group.fullPath}`;
    const relative = (path: string) => (path === top ? "acme" : path.slice(top.length + 1));
    const lines = shown(list).map((event) => {
      const where = event.group ? `group ${relative(event.group.full_path)}` : relative(t.paths.get(event.project_id!)!);
      return `${where}: ${event.action_name}${event.target_title ? ` ${event.target_title}` : ""}`;
    });
    expect(list.total, "the total counts what the page shows").toBe(lines.length);
    return lines;
  }

  const groupsCreated = ["group acme: created", "group platform: created", "group secret: created"];
  const projectsCreated = ["site: created", "platform/tools: created", "platform/core: created", "secret/vault: created"];
  const joins = ["group acme: joined", "group acme: joined", "group platform: joined", "group acme: joined", "platform/core: joined"];
  const issues = [
    "site: opened Site issue",
    "site: opened Site secret",
    "site: commented on Site issue",
    "platform/tools: opened Tools issue",
    "platform/core: opened Core issue",
    "platform/core: opened Core secret",
    "secret/vault: opened Vault issue",
  ];
  const pushes = ["site: pushed to", "platform/tools: pushed to", "platform/core: pushed to"];
  const all = [...groupsCreated, ...projectsCreated, ...joins, ...issues, ...pushes];
  const without = (...hidden: string[]) => all.filter((line) => !hidden.some((prefix) => line.startsWith(prefix)));

  it("shows each reader the events of the projects and groups they may see, each under its project's rules", async () => {
    const t = await tree();
    // Administrators, Owners and Reporters of the top group see everything.
    expect(await activity(t, t.admin)).toEqual(all);
    expect(await activity(t, t.owner)).toEqual(all);
    expect(await activity(t, t.topReporter)).toEqual(all);

    // Nobody signed in: the public groups and project; the project's pushes (its code is public), nothing confidential
    // or internal.
    const publicOnly = without("group secret", "platform/tools", "platform/core", "secret/vault", "site: opened Site secret", "site: commented on");
    expect(await activity(t, null)).toEqual(publicOnly);
    // A signed-in stranger also sees the internal project, its push included.
    expect(await activity(t, t.stranger)).toEqual(without("group secret", "platform/core", "secret/vault", "site: opened Site secret", "site: commented on"));

    // A Reporter of `platform` sees all of it, and the rest as a stranger; not the private group beside it.
    expect(await activity(t, t.subReporter)).toEqual(without("group secret", "secret/vault", "site: opened Site secret", "site: commented on"));

    // A Guest of the top group sees every project and group below it, but as a Guest: no confidential issue, no
    // internal note, no push of private code.
    const asGuest = without("site: opened Site secret", "site: commented on", "platform/core: opened Core secret", "platform/core: pushed to");
    expect(await activity(t, t.topGuest)).toEqual(asGuest);
    // The higher of the inherited role and the project's own: a Guest of the group who is a Reporter of `core`.
    expect(await activity(t, t.mixed)).toEqual(without("site: opened Site secret", "site: commented on"));
  });

  it("a subgroup's activity holds its own subtree only; a group the reader may not see is 404, as the group itself", async () => {
    const t = await tree();
    expect(await activity(t, t.owner, {}, t.platform.group.fullPath)).toEqual(all.filter((line) => line.includes("platform")));
    expect(await activity(t, t.topGuest, {}, String(t.secret.group.id))).toEqual(["group secret: created", "secret/vault: created", "secret/vault: opened Vault issue"]);
    for (const viewer of [null, t.stranger, t.subReporter]) {
      const refused = await apiFailure(listGroupEvents(contextOf(viewer), String(t.secret.group.id), {}, everything));
      expect(refused).toBeInstanceOf(NotFoundError);
      expect(refused.body()).toEqual({ message: "404 Group Not Found" });
    }
    await expect(listGroupEvents(contextOf(t.owner), `${t.acme.group.fullPath}/nothing`, {}, everything)).rejects.toBeInstanceOf(NotFoundError);
    // A user namespace is no group.
    await expect(listGroupEvents(contextOf(t.owner), t.owner.username, {}, everything)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("filters by action, target type and day, as the other lists", async () => {
    const t = await tree();
    expect(await activity(t, t.topGuest, { action: "joined" })).toEqual(joins);
    // Opening an issue is a `created` event too.
    expect(await activity(t, t.topGuest, { action: "created" })).toEqual([
      ...groupsCreated,
      ...projectsCreated,
      "site: opened Site issue",
      "platform/tools: opened Tools issue",
      "platform/core: opened Core issue",
      "secret/vault: opened Vault issue",
    ]);
    expect(await activity(t, t.topGuest, { targetType: "issue" })).toEqual(
      ["site: opened Site issue", "platform/tools: opened Tools issue", "platform/core: opened Core issue", "secret/vault: opened Vault issue"],
    );
    const today = t.ctx.now.toISOString().slice(0, 10);
    expect(await activity(t, null, { before: today })).toEqual([]);
    expect(await activity(t, null, { after: "2000-01-01", action: "pushed" })).toEqual(["site: pushed to"]);
  });

  it("an author of a confidential issue who is only a Guest still sees its events, and no other's", async () => {
    const t = await tree();
    const author = await createTestUser(handle.db);
    await addMember(t.ctx, String(t.core.project.id), { userId: author.id, accessLevel: 20 });
    await createIssue(userContext(handle.db, author), String(t.core.project.id), { title: "Author secret", confidential: true });
    await updateMember(t.ctx, String(t.core.project.id), author.id, { accessLevel: 10 });
    const lines = await activity(t, author, { targetType: "issue" });
    expect(lines.filter((line) => line.includes("secret"))).toEqual(["platform/core: opened Author secret"]);
  });

  it("offset pages with their total, and keyset pages in both directions, walk the same list without gaps or repeats", async () => {
    const t = await tree();
    for (const viewer of [null, t.topGuest, t.admin]) {
      const ctx = contextOf(viewer);
      const reference = String(t.acme.group.id);
      const whole = (await listGroupEvents(ctx, reference, {}, everything)).items.map((item) => item.id);
      expect(whole.length).toBeGreaterThan(8);
      const second = await listGroupEvents(ctx, reference, {}, { kind: "offset", page: { page: 2, perPage: 4, offset: 4 } });
      expect(second.items.map((item) => item.id)).toEqual(whole.slice(4, 8));
      expect(second.total).toBe(whole.length);
      expect(second.hasMore).toBe(true);
      for (const sort of ["desc", "asc"] as const) {
        const expected = sort === "desc" ? whole : [...whole].reverse();
        const seen: number[] = [];
        let cursor: number | undefined;
        for (let guard = 0; guard < 50; guard += 1) {
          const page: EventPage = { kind: "keyset", perPage: 3, ...(sort === "asc" ? { idAfter: cursor } : { idBefore: cursor }) };
          const list = await listGroupEvents(ctx, reference, { sort }, page);
          expect(list.total).toBeNull();
          seen.push(...list.items.map((item) => item.id));
          if (!list.hasMore) break;
          cursor = list.items.at(-1)!.id;
        }
        expect(seen, `${viewer?.username ?? "anonymous"} ${sort}`).toEqual(expected);
      }
    }
  });

  it("pages hold exactly the list's events in order, however unevenly they spread over projects and groups", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const top = await createGroup(ctx, { name: "Spread", path: `spread-${uniqueSuffix()}`, visibility: "public" });
    const inner = await createGroup(ctx, { name: "Inner", path: "inner", parentId: top.group.id, visibility: "public" });
    const hidden = await createGroup(ctx, { name: "Hidden", path: "hidden", parentId: top.group.id });
    const projects = [];
    for (const [index, namespace, visibility] of [
      [0, top, "public"],
      [1, top, "private"],
      [2, inner, "public"],
      [3, inner, "public"],
      [4, inner, "internal"],
      [5, hidden, "private"],
    ] as const) {
      projects.push((await createProject(ctx, { path: `p${index}`, namespaceId: namespace.group.id, visibility })).project);
    }
    // A few busy sources and many quiet ones, times drawn from a small set so that many events share one instant.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const base = Date.UTC(2031, 0, 1);
    for (let index = 0; index < 90; index += 1) {
      const pick = next();
      const createdAt = new Date(base + Math.floor(next() * 40) * 60_000);
      const action = next() < 0.3 ? "pushed" : "updated";
      if (pick < 0.1) {
        await recordEvent(handle.db, { projectId: null, groupId: [top, inner, hidden][index % 3]!.group.id, authorId: owner.id, action: "joined", createdAt });
      } else {
        // Half of the events in the first project, the rest spread.
        const project = pick < 0.55 ? projects[0]! : projects[1 + (index % 5)]!;
        await recordEvent(handle.db, { projectId: project.id, authorId: owner.id, action, createdAt });
      }
    }
    const subtreeGroups = [top, inner, hidden].map((view) => view.group.id);
    const rows = await handle.db
      .select({ id: events.id, createdAt: events.createdAt, projectId: events.projectId, groupId: events.groupId, audience: events.audience })
      .from(events)
      .where(sql`${events.groupId} in (${sql.join(subtreeGroups, sql`, `)}) or ${events.projectId} in (${sql.join(projects.map((project) => project.id), sql`, `)})`);
    const inOrder = (list: typeof rows) =>
      [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id).map((row) => row.id);
    const publicProjects = new Set([projects[0]!.id, projects[2]!.id, projects[3]!.id]);
    const expected = new Map<string, number[]>([
      ["admin", inOrder(rows)],
      [
        "anonymous",
        inOrder(rows.filter((row) => (row.groupId !== null ? row.groupId !== hidden.group.id : publicProjects.has(row.projectId!) && row.audience <= 1))),
      ],
    ]);
    expect(expected.get("anonymous")!.length).toBeLessThan(expected.get("admin")!.length);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    for (const [name, viewer] of [["admin", userContext(handle.db, admin)], ["anonymous", anonymousTestContext(handle.db)]] as const) {
      const want = expected.get(name)!;
      for (const perPage of [1, 2, 5, 7]) {
        for (const sort of ["desc", "asc"] as const) {
          const ordered = sort === "desc" ? want : [...want].reverse();
          const seen: number[] = [];
          let cursor: number | undefined;
          for (let guard = 0; guard <= want.length; guard += 1) {
            const page: EventPage = { kind: "keyset", perPage, ...(sort === "asc" ? { idAfter: cursor } : { idBefore: cursor }) };
            const list = await listGroupEvents(viewer, String(top.group.id), { sort }, page);
            seen.push(...list.items.map((item) => item.id));
            if (!list.hasMore) break;
            cursor = list.items.at(-1)!.id;
          }
          expect(seen, `${name}, ${perPage} a page, ${sort}`).toEqual(ordered);
        }
        for (const pageNumber of [1, 2, 3, 9]) {
          const offset = (pageNumber - 1) * perPage;
          const list = await listGroupEvents(viewer, String(top.group.id), {}, { kind: "offset", page: { page: pageNumber, perPage, offset } });
          expect(list.items.map((item) => item.id), `${name}, page ${pageNumber} of ${perPage}`).toEqual(want.slice(offset, offset + perPage));
          expect(list.total).toBe(want.length);
          expect(list.hasMore).toBe(offset + perPage < want.length);
        }
      }
    }
  });

  it("a cursor event the reader may not see positions a page as a deleted one would", async () => {
    const t = await tree();
    const [hidden] = await handle.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.projectId, t.vault.project.id), eq(events.action, "created")));
    const page: EventPage = { kind: "keyset", perPage: 50, idBefore: hidden!.id };
    const before = (await listGroupEvents(contextOf(null), String(t.acme.group.id), {}, page)).items.map((item) => item.id);
    expect(before.every((id) => id < hidden!.id)).toBe(true);
    expect(before.length).toBeGreaterThan(0);
    await handle.db.delete(events).where(eq(events.id, hidden!.id));
    expect((await listGroupEvents(contextOf(null), String(t.acme.group.id), {}, page)).items.map((item) => item.id)).toEqual(before);
  });

  it("refuses offsets past a row budget that shrinks as the group's subtree grows, pointing at keyset pages", async () => {
    const t = await tree();
    // Seven sources (three groups, four projects): 500,000 / 7 rows.
    const deep: EventPage = { kind: "offset", page: { page: 3573, perPage: 20, offset: 71_440 } };
    const refused = await apiFailure(listGroupEvents(contextOf(t.owner), String(t.acme.group.id), {}, deep));
    expect(refused).toBeInstanceOf(OffsetLimitExceededError);
    expect(refused.body()).toEqual({
      error:
        "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Event. Remaining records can be retrieved using keyset pagination.",
    });
    const wide = await createGroup(t.ctx, { name: "Wide", path: `wide-${uniqueSuffix()}`, visibility: "public" });
    for (let index = 0; index < 20; index += 1) await createProject(t.ctx, { path: `p${index}`, namespaceId: wide.group.id, visibility: "public" });
    // 21 sources: 500,000 / 21 = 23,809 rows.
    const past = await apiFailure(listGroupEvents(contextOf(null), String(wide.group.id), {}, { kind: "offset", page: { page: 1191, perPage: 20, offset: 23_800 } }));
    expect(past.body()).toMatchObject({ error: expect.stringContaining("maximum allowed offset of 23809 ") });
    const within = await listGroupEvents(contextOf(null), String(wide.group.id), {}, { kind: "offset", page: { page: 1190, perPage: 20, offset: 23_780 } });
    expect(within.items).toEqual([]);
    expect(within.total).toBe(21);
  });

  it("records group events with the change: created, joined, left, and expired when the membership had ended", async () => {
    const owner = await createTestUser(handle.db);
    const member = await createTestUser(handle.db);
    const leaver = await createTestUser(handle.db);
    const jan1 = new Date("2030-01-01T00:00:00.000Z");
    const ctx = { ...userContext(handle.db, owner), now: jan1 };
    const group = await createGroup(ctx, { name: "Team", path: `team-${uniqueSuffix()}`, visibility: "public" });
    await addGroupMember(ctx, String(group.group.id), { userId: member.id, accessLevel: 30, expiresAt: "2030-02-01" });
    await addGroupMember(ctx, String(group.group.id), { userId: leaver.id, accessLevel: 30 });
    await removeGroupMember({ ...userContext(handle.db, leaver), now: new Date("2030-01-10T00:00:00Z") }, String(group.group.id), leaver.id);
    await removeGroupMember({ ...ctx, now: new Date("2030-03-01T00:00:00Z") }, String(group.group.id), member.id);
    const stored = await handle.db
      .select({ action: events.action, authorId: events.authorId, projectId: events.projectId, targetType: events.targetType, audience: events.audience })
      .from(events)
      .where(eq(events.groupId, group.group.id))
      .orderBy(events.id);
    expect(stored).toEqual([
      { action: "created", authorId: owner.id, projectId: null, targetType: null, audience: 0 },
      { action: "joined", authorId: member.id, projectId: null, targetType: null, audience: 0 },
      { action: "joined", authorId: leaver.id, projectId: null, targetType: null, audience: 0 },
      { action: "left", authorId: leaver.id, projectId: null, targetType: null, audience: 0 },
      { action: "expired", authorId: member.id, projectId: null, targetType: null, audience: 0 },
    ]);
    const list = shown(await listGroupEvents(contextOf(null), String(group.group.id), {}, everything));
    expect(list.map((event) => event.action_name)).toEqual(["removed due to membership expiration from", "left", "joined", "joined", "created"]);
    expect(list[0]).toMatchObject({
      project_id: null,
      target_type: null,
      author_id: member.id,
      group: { id: group.group.id, name: "Team", full_name: "Team", full_path: group.group.fullPath, web_url: expect.stringMatching(new RegExp(`/groups/${group.group.fullPath}$`)) },
    });
    // Events and memberships stay together: a membership that is not there records nothing.
    await expect(removeGroupMember(ctx, String(group.group.id), member.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await handle.db.$count(events, eq(events.groupId, group.group.id))).toBe(5);
  });

  it("an expired group membership no longer shows private projects' events, and the job removes it with an `expired` event", async () => {
    const owner = await createTestUser(handle.db);
    const temporary = await createTestUser(handle.db);
    const jan1 = new Date("2030-01-01T00:00:00.000Z");
    const ctx = { ...userContext(handle.db, owner), now: jan1 };
    const top = await createGroup(ctx, { name: "Top", path: `top-${uniqueSuffix()}`, visibility: "public" });
    const hidden = await createGroup(ctx, { name: "Hidden", path: "hidden", parentId: top.group.id });
    const project = await createProject(ctx, { path: "private-work", namespaceId: hidden.group.id });
    await createIssue(ctx, String(project.project.id), { title: "Private work" });
    await addGroupMember(ctx, String(hidden.group.id), { userId: temporary.id, accessLevel: 20, expiresAt: "2030-03-01" });
    const titles = async (now: Date) =>
      shown(await listGroupEvents(contextOf(temporary, now), String(top.group.id), { sort: "asc" }, everything)).map(
        (event) => `${event.group ? event.group.name : "project"}: ${event.action_name}${event.target_title ? ` ${event.target_title}` : ""}`,
      );
    expect(await titles(new Date("2030-02-28T23:59:59.999Z"))).toEqual([
      "Top: created",
      "Hidden: created",
      "project: created",
      "project: opened Private work",
      "Hidden: joined",
    ]);
    const expiredDay = new Date("2030-03-01T00:00:00.000Z");
    expect(await titles(expiredDay)).toEqual(["Top: created"]);
    await expect(listGroupEvents(contextOf(temporary, expiredDay), String(hidden.group.id), {}, everything)).rejects.toBeInstanceOf(NotFoundError);

    const run = await runMembershipExpiry(handle, expiredDay);
    expect(run.ran).toBe(true);
    expect(run.removed).toBeGreaterThanOrEqual(1);
    const ownerView = shown(await listGroupEvents(contextOf(owner), String(hidden.group.id), {}, everything));
    expect(ownerView[0]).toMatchObject({ action_name: "removed due to membership expiration from", author_id: temporary.id, group: { id: hidden.group.id } });
    expect(await titles(expiredDay)).toEqual(["Top: created"]);
  });

  it("the Events API never lists group events, and the maintained counts and retention take events without a project", async () => {
    const t = await tree();
    const groupEventCount = await handle.db.$count(events, isNotNull(events.groupId));
    expect(groupEventCount).toBeGreaterThanOrEqual(7);
    // A member's activity: their joining `core`, never their joining `acme`, whoever asks, totals included.
    for (const viewer of [t.admin, t.topGuest, t.mixed]) {
      const authored = await listUserEvents(contextOf(viewer), String(t.mixed.id), {}, everything);
      expect(shown(authored).map((event) => [event.action_name, event.project_id])).toEqual([["joined", t.core.project.id]]);
      expect(authored.total).toBe(1);
    }
    const unseen = await listUserEvents(contextOf(null), String(t.mixed.id), {}, everything);
    expect([unseen.items, unseen.total]).toEqual([[], 0]);
    const onlyGroupEvents = await listUserEvents(contextOf(t.admin), String(t.topGuest.id), {}, everything);
    expect([onlyGroupEvents.items, onlyGroupEvents.total]).toEqual([[], 0]);
    // The owner created three groups, four projects and six issues, commented once and pushed three times.
    const own = await listOwnEvents(contextOf(t.owner), false, {}, everything);
    expect(shown(own).filter((event) => event.project_id !== null)).toHaveLength(14);
    expect([own.items.length, own.total]).toEqual([14, 14]);
    expect((await listUserEvents(contextOf(t.admin), String(t.owner.id), { action: "created" }, everything)).total).toBe(10);
    // Everything in the Reporter's projects, and nothing of their groups.
    const memberScope = await listOwnEvents(contextOf(t.topReporter), true, {}, everything);
    expect(shown(memberScope).filter((event) => event.project_id !== null)).toHaveLength(15);
    expect([memberScope.items.length, memberScope.total]).toEqual([15, 15]);
    expect((await listProjectEvents(contextOf(t.owner), String(t.site.project.id), {}, everything)).total).toBe(5);

    // No count row is ever written for an event without a project (the tables' project is not null).
    const counted = async (): Promise<[number, number]> => [
      Number((await handle.db.select({ n: sql<string>`coalesce(sum(${projectEventCounts.eventCount}), 0)` }).from(projectEventCounts))[0]!.n),
      Number((await handle.db.select({ n: sql<string>`coalesce(sum(${authorEventCounts.eventCount}), 0)` }).from(authorEventCounts))[0]!.n),
    ];
    const projectEvents = await handle.db.$count(events, isNotNull(events.projectId));
    const [byProject, byAuthor] = await counted();
    expect(byProject).toBe(projectEvents);
    expect(byAuthor).toBe(projectEvents);

    // An update of group events, and their deletion by retention, leave the counts alone.
    await handle.db.update(events).set({ internal: true }).where(eq(events.groupId, t.secret.group.id));
    expect(await counted()).toEqual([byProject, byAuthor]);
    const old = new Date("2001-01-01T00:00:00Z");
    await recordEvent(handle.db, { projectId: null, groupId: t.acme.group.id, authorId: t.owner.id, action: "joined", createdAt: old });
    await recordEvent(handle.db, { projectId: t.site.project.id, authorId: t.owner.id, action: "updated", createdAt: old });
    expect(await counted()).toEqual([byProject + 1, byAuthor + 1]);
    expect(await pruneEventsBefore(handle.db, new Date("2002-01-01T00:00:00Z"), { pauseMs: 0 })).toBe(2);
    expect(await counted()).toEqual([byProject, byAuthor]);
    expect(await handle.db.$count(events, isNotNull(events.groupId))).toBe(groupEventCount);
  });

  it("an event belongs to a project or a group, never both; deleting a group deletes its events", async () => {
    const t = await tree();
    await expect(
      recordEvent(handle.db, { projectId: t.site.project.id, groupId: t.acme.group.id, authorId: t.owner.id, action: "joined", createdAt: new Date() }),
    ).rejects.toThrow();
    const subtreeGroups = [t.acme, t.platform, t.secret].map((view) => view.group.id);
    expect(await handle.db.$count(events, sql`${events.groupId} in (${sql.join(subtreeGroups, sql`, `)})`)).toBeGreaterThan(0);
    await deleteGroup(t.ctx, String(t.acme.group.id));
    expect(await handle.db.$count(events, sql`${events.groupId} in (${sql.join(subtreeGroups, sql`, `)})`)).toBe(0);
  });
});
