import { describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { eventActions, events, eventTargetTypes, type EventAction, type EventTargetType, type ProjectVisibility, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { NotFoundError, ParameterError, UnauthorizedError } from "@/lib/errors";
import { createIssue, updateIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { addMember, updateMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { parseParams, readQuery } from "@/lib/api/request";
import { eventQueryOf, eventQueryParams, ownEventQueryParams } from "./api";
import type { FeedEvent } from "./describe";
import { eventTargetTypeFilters, listOwnEvents, listProjectEvents, listUserEvents, type EventFilters, type EventList, type EventPage } from "./query";
import { recordEvent } from "./record";

const firstPage: EventPage = { kind: "offset", page: { page: 1, perPage: 100, offset: 0 } };

/** A page's events as clients read them. */
function shown(list: EventList): FeedEvent[] {
  return list.items.map((item) => JSON.parse(item.json) as FeedEvent);
}

/** GitLab's `action_name` for each stored action (of an event without push data; `created` with a target). */
const actionNames: Record<EventAction, string> = {
  created: "opened",
  updated: "opened",
  closed: "closed",
  reopened: "opened",
  pushed: "pushed to",
  commented: "commented on",
  merged: "accepted",
  joined: "joined",
  left: "left",
  destroyed: "destroyed",
  expired: "removed due to membership expiration from",
  approved: "approved",
};

/** The events query a route reads from this query string (as `apiResource` parses parameters). */
function query(search: string, allowScope = false) {
  const url = new URL(`http://localhost/api/v4/events?${search}`);
  return eventQueryOf(parseParams(allowScope ? ownEventQueryParams : eventQueryParams, readQuery(url)));
}

describe("Events API parameters", () => {
  it("refuses unknown actions and target types with GitLab's 400 bodies", () => {
    for (const [search, body] of [
      ["action=bogus", { error: "action does not have a valid value" }],
      ["action=Created", { error: "action does not have a valid value" }],
      ["target_type=bogus", { error: "target_type does not have a valid value" }],
      ["target_type=Issue", { error: "target_type does not have a valid value" }],
      ["sort=up", { error: "sort does not have a valid value" }],
      ["before=2024-02-30", { error: "before is invalid" }],
      ["after=yesterday", { error: "after is invalid" }],
    ] as const) {
      let thrown: unknown;
      try {
        query(search);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, search).toBeInstanceOf(ParameterError);
      expect((thrown as ParameterError).status).toBe(400);
      expect((thrown as ParameterError).body(), search).toEqual(body);
    }
  });

  it("accepts every action and target type GitLab documents, and reads scope only on /events", () => {
    for (const action of eventActions) expect(query(`action=${action}`).filters.action).toBe(action);
    for (const targetType of Object.keys(eventTargetTypeFilters)) expect(query(`target_type=${targetType}`).filters.targetType).toBe(targetType);
    expect(query("scope=all", true).scopeAll).toBe(true);
    expect(query("scope=mine", true).scopeAll).toBe(false);
    // Elsewhere `scope` is not declared, so it is ignored, as GitLab ignores parameters an endpoint does not declare.
    expect(query("scope=all").scopeAll).toBe(false);
    expect(query("").filters.sort).toBe("desc");
  });
});

describe.each(testDatabases())("event lists on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function projectOf(owner: UserRow, visibility: ProjectVisibility = "private") {
    const view = await createProject(userContext(handle.db, owner), { name: `Events ${uniqueSuffix()}`, visibility });
    return view.project.id;
  }

  async function record(projectId: number, author: UserRow, action: EventAction, options: { targetType?: EventTargetType; createdAt?: Date; issueId?: number } = {}) {
    await recordEvent(handle.db, {
      projectId,
      authorId: author.id,
      action,
      targetType: options.targetType ?? null,
      targetId: options.targetType ? 1 : null,
      issueId: options.issueId ?? null,
      createdAt: options.createdAt ?? new Date(),
    });
  }

  async function latestEventId(projectId: number): Promise<number> {
    const [latest] = await handle.db.select({ id: events.id }).from(events).where(eq(events.projectId, projectId)).orderBy(desc(events.id)).limit(1);
    return latest!.id;
  }

  async function projectEvents(user: UserRow | null, projectId: number, filters: EventFilters = {}, page: EventPage = firstPage) {
    const ctx = user ? userContext(handle.db, user) : anonymousTestContext(handle.db);
    return listProjectEvents(ctx, String(projectId), filters, page);
  }

  it("filters by every action", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    for (const action of eventActions) await record(projectId, owner, action, { targetType: action === "commented" ? "Note" : "Issue" });
    for (const action of eventActions) {
      const list = await projectEvents(owner, projectId, { action });
      // Project creation is a `created` event of its own, without a target.
      expect(shown(list).map((event) => event.action_name), action).toEqual(action === "created" ? ["opened", "created"] : [actionNames[action]]);
      expect(list.total).toBe(list.items.length);
    }
  });

  it("renders each event as GitLab's Events API does, key order included", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    const ctx = userContext(handle.db, owner);
    const { issue } = await createIssue(ctx, String(projectId), { title: "Flaky test" });
    const { note } = await createNote(ctx, String(projectId), issue.iid, { body: "Seen again" });
    const pushData = { commit_count: 2, action: "created", ref_type: "branch", commit_from: null, commit_to: "a".repeat(40), ref: "main", commit_title: "Add CI", ref_count: null };
    await recordEvent(handle.db, { projectId, authorId: owner.id, action: "pushed", data: { push_data: pushData }, createdAt: new Date("2030-01-01T00:00:00.123Z") });
    const [push, comment, opened] = (await projectEvents(owner, projectId)).items;
    const author = {
      id: owner.id,
      username: owner.username,
      name: owner.name,
      state: "active",
      avatar_url: `${env.EXTERNAL_URL}/-/avatars/${owner.id}`,
      web_url: `${env.EXTERNAL_URL}/${owner.username}`,
    };
    const common = (id: number) => ({ id, title: null, project_id: projectId });
    expect(push!.json).toBe(
      JSON.stringify({
        ...common(push!.id),
        action_name: "pushed new",
        target_id: null,
        target_iid: null,
        target_type: null,
        author_id: owner.id,
        target_title: null,
        created_at: "2030-01-01T00:00:00.123Z",
        author,
        push_data: pushData,
        author_username: owner.username,
      }),
    );
    expect(comment!.json).toBe(
      JSON.stringify({
        ...common(comment!.id),
        action_name: "commented on",
        target_id: note.id,
        target_iid: note.id,
        target_type: "Note",
        author_id: owner.id,
        target_title: "Flaky test",
        created_at: note.createdAt.toISOString(),
        author,
        note: {
          id: note.id,
          type: null,
          body: "Seen again",
          attachment: null,
          author,
          created_at: note.createdAt.toISOString(),
          updated_at: note.updatedAt.toISOString(),
          system: false,
          noteable_id: issue.id,
          noteable_type: "Issue",
          project_id: projectId,
          internal: false,
          noteable_iid: issue.iid,
        },
        author_username: owner.username,
      }),
    );
    expect(JSON.parse(opened!.json)).toMatchObject({ action_name: "opened", target_type: "Issue", target_iid: issue.iid, target_title: "Flaky test" });
  });

  it("filters by every target type, matching the stored class name exactly", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    for (const targetType of eventTargetTypes) await record(projectId, owner, "created", { targetType });
    for (const [filter, stored] of Object.entries(eventTargetTypeFilters)) {
      const list = await projectEvents(owner, projectId, { targetType: filter as keyof typeof eventTargetTypeFilters });
      expect(shown(list).map((event) => event.target_type), filter).toEqual([stored]);
    }
    // Push and project-creation events have no target and match no target type.
    expect((await projectEvents(owner, projectId)).total).toBe(eventTargetTypes.length + 1);
  });

  it("before and after are exclusive whole UTC days", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    const instants = ["2024-03-09T23:59:59.999Z", "2024-03-10T00:00:00.000Z", "2024-03-10T12:00:00.000Z", "2024-03-10T23:59:59.999Z", "2024-03-11T00:00:00.000Z"];
    for (const instant of instants) await record(projectId, owner, "updated", { createdAt: new Date(instant) });
    const times = async (filters: EventFilters) =>
      shown(await projectEvents(owner, projectId, { action: "updated", sort: "asc", ...filters })).map((event) => event.created_at);
    expect(await times({ after: "2024-03-09" })).toEqual(instants.slice(1));
    expect(await times({ before: "2024-03-11" })).toEqual(instants.slice(0, 4));
    expect(await times({ after: "2024-03-09", before: "2024-03-11" })).toEqual(instants.slice(1, 4));
    expect(await times({ after: "2024-03-10", before: "2024-03-11" })).toEqual([]);
    expect(await times({ after: "2024-03-08", before: "2024-03-10" })).toEqual(instants.slice(0, 1));
    expect(await times({ after: "2024-03-11" })).toEqual([]);
  });

  it("sorts by creation time, then id, in either direction", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    const same = new Date("2024-05-05T05:05:05.005Z");
    await record(projectId, owner, "updated", { createdAt: new Date("2024-05-06T00:00:00Z") });
    await record(projectId, owner, "updated", { createdAt: same });
    await record(projectId, owner, "updated", { createdAt: same });
    await record(projectId, owner, "updated", { createdAt: new Date("2024-05-04T00:00:00Z") });
    const desc = shown(await projectEvents(owner, projectId, { action: "updated", sort: "desc" }));
    const asc = shown(await projectEvents(owner, projectId, { action: "updated", sort: "asc" }));
    expect(asc.map((event) => event.id)).toEqual([...desc].reverse().map((event) => event.id));
    expect(desc.map((event) => event.created_at)).toEqual([
      "2024-05-06T00:00:00.000Z",
      same.toISOString(),
      same.toISOString(),
      "2024-05-04T00:00:00.000Z",
    ]);
    expect(desc[1]!.id).toBeGreaterThan(desc[2]!.id);
  });

  it("private projects and confidential issues: what strangers, guests, reporters and authors see", async () => {
    const owner = await createTestUser(handle.db);
    const guest = await createTestUser(handle.db);
    const reporter = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const projectId = await projectOf(owner, "private");
    const ownerCtx = userContext(handle.db, owner);
    await addMember(ownerCtx, String(projectId), { userId: guest.id, accessLevel: 10 });
    await addMember(ownerCtx, String(projectId), { userId: reporter.id, accessLevel: 20 });
    const open = await createIssue(ownerCtx, String(projectId), { title: "Open issue" });
    const secret = await createIssue(ownerCtx, String(projectId), { title: "Secret issue", confidential: true });
    await createNote(ownerCtx, String(projectId), secret.issue.iid, { body: "about the secret" });
    await updateIssue(ownerCtx, String(projectId), secret.issue.iid, { stateEvent: "close" });
    await createNote(ownerCtx, String(projectId), open.issue.iid, { body: "about the open one" });
    await record(projectId, owner, "pushed");

    const titles = async (user: UserRow) =>
      shown(await projectEvents(user, projectId, { sort: "asc" })).map((event) => `${event.action_name}:${event.target_title ?? ""}`);
    const everything = [
      "created:",
      "joined:",
      "joined:",
      "opened:Open issue",
      "opened:Secret issue",
      "commented on:Secret issue",
      "closed:Secret issue",
      "commented on:Open issue",
      "pushed to:",
    ];
    expect(await titles(owner)).toEqual(everything);
    expect(await titles(reporter)).toEqual(everything);
    expect(await titles(admin)).toEqual(everything);
    // Guests see the project's activity but neither confidential issues nor code.
    expect(await titles(guest)).toEqual(["created:", "joined:", "joined:", "opened:Open issue", "commented on:Open issue"]);
    const guestList = await projectEvents(guest, projectId);
    expect(guestList.total).toBe(5);

    await expect(projectEvents(stranger, projectId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(projectEvents(null, projectId)).rejects.toThrow("404 Project Not Found");
    // The owner's activity, as others see it.
    const ownerEventsFor = async (user: UserRow | null) =>
      (await listUserEvents(user ? userContext(handle.db, user) : anonymousTestContext(handle.db), owner.username, {}, firstPage)).total;
    expect(await ownerEventsFor(stranger)).toBe(0);
    expect(await ownerEventsFor(null)).toBe(0);
    expect(await ownerEventsFor(guest)).toBe(3);
    expect(await ownerEventsFor(reporter)).toBe(7);

    // A guest who authors a confidential issue sees its events; other guests do not.
    const otherGuest = await createTestUser(handle.db);
    await addMember(ownerCtx, String(projectId), { userId: otherGuest.id, accessLevel: 10 });
    // Guests cannot open issues (Reporter+): the author opens it as a Reporter and is then demoted to Guest.
    const authored = await createIssue(userContext(handle.db, reporter), String(projectId), { title: "Reporter secret", confidential: true });
    expect(authored.issue.confidential).toBe(true);
    await updateMember(ownerCtx, String(projectId), reporter.id, { accessLevel: 10 });
    expect((await titles(reporter)).filter((title) => title.includes("secret"))).toEqual(["opened:Reporter secret"]);
    expect((await titles(otherGuest)).filter((title) => title.toLowerCase().includes("secret"))).toEqual([]);
  });

  it("comments in internal notes: stored as internal events, shown with their X-Total only to Reporters and above and admins", async () => {
    const owner = await createTestUser(handle.db);
    const reporter = await createTestUser(handle.db);
    const guest = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const projectId = await projectOf(owner, "public");
    const ownerCtx = userContext(handle.db, owner);
    await addMember(ownerCtx, String(projectId), { userId: reporter.id, accessLevel: 20 });
    await addMember(ownerCtx, String(projectId), { userId: guest.id, accessLevel: 10 });
    const { issue } = await createIssue(ownerCtx, String(projectId), { title: "Public issue" });
    await createNote(ownerCtx, String(projectId), issue.iid, { body: "for everyone" });
    const internal = await createNote(userContext(handle.db, reporter), String(projectId), issue.iid, { body: "between us", internal: true });
    expect(internal.note.internal).toBe(true);
    const [stored] = await handle.db
      .select()
      .from(events)
      .where(and(eq(events.targetType, "Note"), eq(events.targetId, internal.note.id)));
    expect(stored).toMatchObject({ action: "commented", targetType: "Note", internal: true, authorId: reporter.id });

    const bodies = (list: EventList) => shown(list).flatMap((event) => (event.note ? [event.note.body] : []));
    for (const viewer of [null, stranger, guest]) {
      const list = await projectEvents(viewer, projectId);
      expect(bodies(list), viewer?.username ?? "anonymous").toEqual(["for everyone"]);
      // created, two joined, opened, one comment
      expect(list.total, viewer?.username ?? "anonymous").toBe(5);
      const authored = await listUserEvents(viewer ? userContext(handle.db, viewer) : anonymousTestContext(handle.db), String(reporter.id), {}, firstPage);
      expect(shown(authored).map((event) => event.action_name)).toEqual(["joined"]);
      expect(authored.total).toBe(1);
      const keyset = await projectEvents(viewer, projectId, {}, { kind: "keyset", perPage: 20 });
      expect(keyset.items.map((item) => item.id)).toEqual(list.items.map((item) => item.id));
    }
    for (const viewer of [reporter, owner, admin]) {
      const list = await projectEvents(viewer, projectId);
      expect(bodies(list), viewer.username).toEqual(["between us", "for everyone"]);
      // From the maintained count for members who see everything, and right.
      expect(list.total, viewer.username).toBe(6);
    }
    // `scope=all`: the Guest's total is counted, the Reporter's taken from the maintained count; both are exact.
    const guestAll = await listOwnEvents(userContext(handle.db, guest), true, {}, firstPage);
    expect(bodies(guestAll)).toEqual(["for everyone"]);
    expect(guestAll.total).toBe(5);
    const reporterAll = await listOwnEvents(userContext(handle.db, reporter), true, {}, firstPage);
    expect(reporterAll.total).toBe(6);
    expect(reporterAll.items).toHaveLength(6);
  });

  it("an expired membership stops counting on its day: visibility, totals and scope=all", async () => {
    const owner = await createTestUser(handle.db);
    const reporter = await createTestUser(handle.db);
    const privateProject = await projectOf(owner, "private");
    const publicProject = await projectOf(owner, "public");
    const ownerCtx = userContext(handle.db, owner);
    for (const projectId of [privateProject, publicProject]) {
      await addMember({ ...ownerCtx, now: new Date("2030-01-01T00:00:00Z") }, String(projectId), { userId: reporter.id, accessLevel: 20, expiresAt: "2030-03-01" });
    }
    const { issue } = await createIssue(ownerCtx, String(publicProject), { title: "Public issue" });
    await createNote(ownerCtx, String(publicProject), issue.iid, { body: "internal", internal: true });
    const secret = await createIssue(ownerCtx, String(publicProject), { title: "Secret", confidential: true });
    await record(publicProject, owner, "pushed");

    const on = (when: string) => ({ ...userContext(handle.db, reporter), now: new Date(when) });
    const lastDay = on("2030-02-28T23:59:59.999Z");
    const expiredDay = on("2030-03-01T00:00:00.000Z");
    // created, joined, opened, commented (internal), opened (confidential), pushed
    expect((await listProjectEvents(lastDay, String(publicProject), {}, firstPage)).total).toBe(6);
    expect((await listProjectEvents(lastDay, String(privateProject), {}, firstPage)).total).toBe(2);
    expect((await listOwnEvents(lastDay, true, {}, firstPage)).total).toBe(8);

    await expect(listProjectEvents(expiredDay, String(privateProject), {}, firstPage)).rejects.toBeInstanceOf(NotFoundError);
    const publicList = await listProjectEvents(expiredDay, String(publicProject), {}, firstPage);
    // (Joining was recorded in 2030, so it comes first.)
    expect(shown(publicList).map((event) => `${event.action_name}:${event.target_title ?? ""}`)).toEqual(["joined:", "pushed to:", "opened:Public issue", "created:"]);
    expect(publicList.total).toBe(4);
    expect(shown(publicList).some((event) => event.target_title === secret.issue.title)).toBe(false);
    const all = await listOwnEvents(expiredDay, true, {}, firstPage);
    expect(all.items).toEqual([]);
    expect(all.total).toBe(0);
    // The owner's activity as the former member sees it: created, opened and pushed in the public project.
    expect((await listUserEvents(expiredDay, String(owner.id), {}, firstPage)).total).toBe(3);
  });

  it("public projects show their activity to everybody, but pushes only where code is readable", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const projectId = await projectOf(owner, "public");
    await record(projectId, owner, "pushed");
    expect(shown(await projectEvents(null, projectId)).map((event) => event.action_name)).toEqual(["pushed to", "created"]);
    expect((await projectEvents(stranger, projectId)).total).toBe(2);
    expect((await listUserEvents(anonymousTestContext(handle.db), String(owner.id), {}, firstPage)).total).toBe(2);
  });

  it("unknown users and projects are 404 with GitLab's bodies; /events needs a user", async () => {
    const user = await createTestUser(handle.db);
    const ctx = userContext(handle.db, user);
    await expect(listUserEvents(ctx, "no_such_user_here", {}, firstPage)).rejects.toSatisfy(
      (error: unknown) => error instanceof NotFoundError && JSON.stringify(error.body()) === '{"message":"404 User Not Found"}',
    );
    await expect(listUserEvents(ctx, "2147483000", {}, firstPage)).rejects.toBeInstanceOf(NotFoundError);
    await expect(listProjectEvents(ctx, "2147483000", {}, firstPage)).rejects.toSatisfy(
      (error: unknown) => error instanceof NotFoundError && JSON.stringify(error.body()) === '{"message":"404 Project Not Found"}',
    );
    await expect(listProjectEvents(ctx, "nobody/nothing", {}, firstPage)).rejects.toBeInstanceOf(NotFoundError);
    await expect(listOwnEvents(anonymousTestContext(handle.db), false, {}, firstPage)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("names a project by id or by its full path in any case; a stranger gets 404 either way", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Events ${uniqueSuffix()}` });
    const path = `${view.namespace.path}/${view.project.path}`;
    const byId = await listProjectEvents(userContext(handle.db, owner), String(view.project.id), {}, firstPage);
    const byPath = await listProjectEvents(userContext(handle.db, owner), path.toUpperCase(), {}, firstPage);
    expect(byId.total).toBe(1);
    expect(byId.items).toHaveLength(1);
    expect(byPath).toEqual(byId);
    await expect(listProjectEvents(userContext(handle.db, stranger), path, {}, firstPage)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("scope=all lists everything in the caller's projects, by anyone, and nothing from elsewhere", async () => {
    const owner = await createTestUser(handle.db);
    const developer = await createTestUser(handle.db);
    const outsider = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    await addMember(userContext(handle.db, owner), String(projectId), { userId: developer.id, accessLevel: 30 });
    await projectOf(outsider, "public");
    const all = await listOwnEvents(userContext(handle.db, developer), true, {}, firstPage);
    expect(shown(all).map((event) => [event.action_name, event.author.id])).toEqual([
      ["joined", developer.id],
      ["created", owner.id],
    ]);
    expect(all.total).toBe(2);
    const own = await listOwnEvents(userContext(handle.db, developer), false, {}, firstPage);
    expect(shown(own).map((event) => event.action_name)).toEqual(["joined"]);

    // As a Guest elsewhere, the total counts only what a Guest sees there (no pushes in a private project).
    const other = await projectOf(owner);
    await addMember(userContext(handle.db, owner), String(other), { userId: developer.id, accessLevel: 10 });
    await record(other, owner, "pushed");
    await record(other, owner, "updated");
    const withGuest = await listOwnEvents(userContext(handle.db, developer), true, {}, firstPage);
    expect(withGuest.total).toBe(5);
    expect(withGuest.items).toHaveLength(5);
  });

  it("keyset pages have no duplicates or gaps while events keep arriving", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    // Many events share one instant, so the id must break ties.
    const instant = new Date("2024-06-01T00:00:00.000Z");
    for (let index = 0; index < 23; index += 1) await record(projectId, owner, "updated", { createdAt: index % 3 === 0 ? new Date(instant.getTime() + index) : instant });
    const original = (await projectEvents(owner, projectId, { action: "updated" })).items.map((item) => item.id);
    expect(original).toHaveLength(23);

    for (const sort of ["desc", "asc"] as const) {
      const seen: number[] = [];
      let cursor: number | undefined;
      let arrivals = 0;
      for (let guard = 0; guard < 20; guard += 1) {
        const page: EventPage = { kind: "keyset", perPage: 5, ...(sort === "asc" ? { idAfter: cursor } : { idBefore: cursor }) };
        // Events arrive while the client pages: concurrently with the page read, and between pages.
        const [list] = await Promise.all([
          projectEvents(owner, projectId, { action: "updated", sort }, page),
          record(projectId, owner, "updated", { createdAt: new Date() }).then(() => (arrivals += 1)),
        ]);
        seen.push(...list.items.map((item) => item.id));
        if (!list.hasMore) break;
        cursor = list.items.at(-1)!.id;
      }
      expect(new Set(seen).size, sort).toBe(seen.length);
      const expected = sort === "desc" ? original : [...original].reverse();
      // Every event that existed when paging began, exactly once and in order; newer ones only ever after them.
      expect(seen.filter((id) => original.includes(id)), sort).toEqual(expected);
      if (sort === "asc") expect(seen.slice(0, original.length)).toEqual(expected);
      expect(arrivals).toBeGreaterThan(0);
      original.splice(0, original.length, ...(await projectEvents(owner, projectId, { action: "updated" })).items.map((item) => item.id));
    }
  });

  it("X-Total for members comes from the maintained count and matches a real count, filters included", async () => {
    const owner = await createTestUser(handle.db);
    const guest = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    await addMember(userContext(handle.db, owner), String(projectId), { userId: guest.id, accessLevel: 10 });
    for (let index = 0; index < 7; index += 1) await record(projectId, owner, index % 2 === 0 ? "updated" : "closed");
    await record(projectId, owner, "pushed");
    // created + joined + 8 recorded
    expect((await projectEvents(owner, projectId)).total).toBe(10);
    expect((await projectEvents(owner, projectId, { action: "closed" })).total).toBe(3);
    // A guest of a private project does not see pushes: counted, not taken from the project's total.
    expect((await projectEvents(guest, projectId)).total).toBe(9);
  });

  it("a cursor event the caller may not see, or from another list, positions a page exactly as a deleted one: its time never shows", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const publicProject = await projectOf(owner, "public");
    const privateProject = await projectOf(owner, "private");
    const otherPublic = await projectOf(stranger, "public");
    // Ids grow with time, but these events were written out of order: their times are what a cursor could betray.
    await record(publicProject, owner, "updated", { createdAt: new Date("2024-01-01T00:00:00Z") });
    await record(publicProject, owner, "updated", { createdAt: new Date("2024-01-03T00:00:00Z") });
    await record(privateProject, owner, "updated");
    const hidden = await latestEventId(privateProject);
    const page = (cursor: number): EventPage => ({ kind: "keyset", perPage: 10, idBefore: cursor });
    const asStranger = async (cursor: number) =>
      (await listProjectEvents(userContext(handle.db, stranger), String(publicProject), { action: "updated" }, page(cursor))).items.map((item) => item.id);
    const asAnonymous = async (cursor: number) =>
      (await listProjectEvents(anonymousTestContext(handle.db), String(publicProject), { action: "updated" }, page(cursor))).items.map((item) => item.id);

    const answers: number[][] = [];
    for (const hiddenTime of ["2024-01-02T00:00:00Z", "2023-12-01T00:00:00Z", "2024-02-01T00:00:00Z"]) {
      await handle.db.update(events).set({ createdAt: new Date(hiddenTime) }).where(eq(events.id, hidden));
      answers.push(await asStranger(hidden), await asAnonymous(hidden));
    }
    await record(publicProject, owner, "updated", { createdAt: new Date("2024-01-04T00:00:00Z") });
    await handle.db.delete(events).where(eq(events.id, hidden));
    const afterDeletion = await asAnonymous(hidden);
    // Both earlier events come before the cursor's id; whatever the hidden event's time, the answer is the deleted one's.
    expect(afterDeletion).toHaveLength(2);
    for (const answer of answers) expect(answer).toEqual(afterDeletion);

    // An event the caller sees, but of another project, is no cursor for this one either.
    await record(otherPublic, stranger, "updated", { createdAt: new Date("2024-01-02T00:00:00Z") });
    const foreign = await latestEventId(otherPublic);
    const foreignAnswer = await asStranger(foreign);
    await handle.db.delete(events).where(eq(events.id, foreign));
    expect(foreignAnswer).toEqual(await asStranger(foreign));
    expect(foreignAnswer).toHaveLength(3);
  });

  it("a keyset page continues past a cursor event that was deleted meanwhile", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    for (let index = 0; index < 6; index += 1) await record(projectId, owner, "updated", { createdAt: new Date(Date.UTC(2024, 0, 1 + index)) });
    const first = await projectEvents(owner, projectId, { action: "updated" }, { kind: "keyset", perPage: 2 });
    const cursor = first.items.at(-1)!.id;
    await handle.db.delete(events).where(eq(events.id, cursor));
    const second = await projectEvents(owner, projectId, { action: "updated" }, { kind: "keyset", perPage: 2, idBefore: cursor });
    expect(second.items.map((item) => item.id)).toEqual([cursor - 1, cursor - 2]);
  });

  it("takes keyset cursors over the whole bigint range of event ids, and a user reference no user can have as a missing user", async () => {
    const owner = await createTestUser(handle.db);
    const projectId = await projectOf(owner);
    for (let index = 0; index < 2; index += 1) await record(projectId, owner, "updated");
    const keyset = (query: string) => eventQueryOf(parseParams(eventQueryParams, readQuery(new URL(`http://x/?pagination=keyset&${query}`)))).page;
    const all = (await projectEvents(owner, projectId, {}, { kind: "keyset", perPage: 10 })).items.map((item) => item.id);
    for (const cursor of ["3000000000", "9007199254740991", "9223372036854775807"]) {
      expect((await projectEvents(owner, projectId, {}, keyset(`id_before=${cursor}`))).items.map((item) => item.id)).toEqual(all);
      expect((await projectEvents(owner, projectId, { sort: "asc" }, keyset(`id_after=${cursor}`))).items).toEqual([]);
    }
    expect(() => keyset("id_after=9223372036854775808")).toThrow(ParameterError);
    for (const reference of ["99999999999", "2147483648", "0"]) {
      await expect(listUserEvents(userContext(handle.db, owner), reference, { sort: "desc" }, { kind: "keyset", perPage: 10 })).rejects.toThrow(NotFoundError);
    }
  });
});
