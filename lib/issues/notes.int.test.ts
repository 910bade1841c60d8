import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageRequest } from "@/lib/api/pagination";
import { events, issueCommentCounts, issues, notes, type UserRow } from "@/lib/db/schema";
import { maintainedEventCount } from "@/lib/testing/event-counts";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createIssue, updateIssue } from "./issues";
import { createNote, deleteNote, getNote, listIssueNotes, listNotes, updateNote } from "./notes";

describe.each(testDatabases())("issue notes on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function team() {
    const [owner, reporter, guest, stranger, maintainer] = await Promise.all([1, 2, 3, 4, 5].map(() => createTestUser(handle.db)));
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const view = await createProject(userContext(handle.db, owner!), { name: `Notes ${uniqueSuffix()}`, visibility: "public" });
    const project = String(view.project.id);
    await addMember(userContext(handle.db, owner!), project, { userId: reporter!.id, accessLevel: 20 });
    await addMember(userContext(handle.db, owner!), project, { userId: guest!.id, accessLevel: 10 });
    await addMember(userContext(handle.db, owner!), project, { userId: maintainer!.id, accessLevel: 40 });
    const { issue } = await createIssue(userContext(handle.db, owner!), project, { title: "Public issue" });
    return { owner: owner!, reporter: reporter!, guest: guest!, stranger: stranger!, maintainer: maintainer!, admin, project, iid: issue.iid };
  }

  it("lists internal notes only to Reporters and above and admins, with the other notes in order", async () => {
    const { owner, reporter, guest, stranger, admin, project, iid } = await team();
    await createNote(userContext(handle.db, owner), project, iid, { body: "first" });
    await createNote(userContext(handle.db, reporter), project, iid, { body: "internal", internal: true });
    await createNote(userContext(handle.db, reporter), project, iid, { body: "last" });
    const bodies = async (user: UserRow | null) =>
      (await listIssueNotes(user ? userContext(handle.db, user) : anonymousTestContext(handle.db), project, iid)).notes.items.map(({ note }) => [note.body, note.internal]);
    for (const viewer of [null, stranger, guest]) {
      expect(await bodies(viewer), viewer?.username ?? "anonymous").toEqual([
        ["first", false],
        ["last", false],
      ]);
    }
    for (const viewer of [reporter, owner, admin]) {
      expect(await bodies(viewer), viewer.username).toEqual([
        ["first", false],
        ["internal", true],
        ["last", false],
      ]);
    }
  });

  it("only those who may comment post internal notes; Guests are refused and nothing is stored", async () => {
    const { guest, reporter, project, iid } = await team();
    await expect(createNote(userContext(handle.db, guest), project, iid, { body: "guest", internal: true })).rejects.toBeInstanceOf(ForbiddenError);
    const posted = await createNote(userContext(handle.db, reporter), project, iid, { body: "reporter", internal: true });
    expect(posted.note).toMatchObject({ body: "reporter", internal: true, authorId: reporter.id });
    expect((await listIssueNotes(userContext(handle.db, reporter), project, iid)).notes.items.map(({ note }) => note.body)).toEqual(["reporter"]);
  });

  it("the API list: newest first by default, by creation or update time either way, paged with a total that leaves internal notes out for Guests", async () => {
    const { owner, reporter, guest, project, iid } = await team();
    const at = (instant: string) => ({ ...userContext(handle.db, reporter), now: new Date(instant) });
    const first = await createNote(at("2024-01-01T00:00:00Z"), project, iid, { body: "first" });
    await createNote(at("2024-01-02T00:00:00Z"), project, iid, { body: "secret", internal: true });
    await createNote(at("2024-01-03T00:00:00Z"), project, iid, { body: "third" });
    await updateNote({ ...userContext(handle.db, reporter), now: new Date("2024-01-04T00:00:00Z") }, project, iid, first.note.id, { body: "first, edited" });
    const bodies = async (user: UserRow, options: Parameters<typeof listNotes>[3], page = pageRequest({})) => {
      const result = await listNotes(userContext(handle.db, user), project, iid, options, page);
      return { bodies: result.items.map(({ note }) => note.body), total: result.total };
    };
    expect(await bodies(owner, {})).toEqual({ bodies: ["third", "secret", "first, edited"], total: 3 });
    expect(await bodies(owner, { sort: "asc" })).toEqual({ bodies: ["first, edited", "secret", "third"], total: 3 });
    expect(await bodies(owner, { orderBy: "updated_at" })).toEqual({ bodies: ["first, edited", "third", "secret"], total: 3 });
    expect(await bodies(owner, { activityFilter: "only_activity" })).toEqual({ bodies: [], total: 0 });
    expect(await bodies(guest, {})).toEqual({ bodies: ["third", "first, edited"], total: 2 });
    expect(await bodies(guest, {}, pageRequest({ per_page: 1, page: 2 }))).toEqual({ bodies: ["first, edited"], total: 2 });
  });

  it("an internal note is not found by those who may not read it: getting, editing or deleting it is 404 and changes nothing", async () => {
    const { reporter, guest, stranger, admin, project, iid } = await team();
    const internal = await createNote(userContext(handle.db, reporter), project, iid, { body: "internal only", internal: true });
    for (const viewer of [guest, stranger]) {
      const ctx = userContext(handle.db, viewer);
      await expect(getNote(ctx, project, iid, internal.note.id)).rejects.toEqual(new NotFoundError("Note"));
      await expect(updateNote(ctx, project, iid, internal.note.id, { body: "overwritten" })).rejects.toEqual(new NotFoundError("Note"));
      await expect(deleteNote(ctx, project, iid, internal.note.id)).rejects.toEqual(new NotFoundError("Note"));
    }
    expect((await getNote(userContext(handle.db, admin), project, iid, internal.note.id)).note.body).toBe("internal only");
    expect(await handle.db.select({ body: notes.body }).from(notes).where(eq(notes.id, internal.note.id))).toEqual([{ body: "internal only" }]);
  });

  it("a note of another issue is not found through this one", async () => {
    const { owner, project, iid } = await team();
    const { issue: other } = await createIssue(userContext(handle.db, owner), project, { title: "Other" });
    const elsewhere = await createNote(userContext(handle.db, owner), project, other.iid, { body: "elsewhere" });
    await expect(getNote(userContext(handle.db, owner), project, iid, elsewhere.note.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("authors edit and delete their notes, Maintainers and admins anyone's, others nobody's; the event follows the note", async () => {
    const { owner, reporter, maintainer, admin, project, iid } = await team();
    const posted = await createNote(userContext(handle.db, reporter), project, iid, { body: "original" });
    const ownersNote = await createNote(userContext(handle.db, owner), project, iid, { body: "owner's" });
    await expect(updateNote(userContext(handle.db, reporter), project, iid, ownersNote.note.id, { body: "hijacked" })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(deleteNote(userContext(handle.db, reporter), project, iid, ownersNote.note.id)).rejects.toBeInstanceOf(ForbiddenError);

    const edited = await updateNote(userContext(handle.db, reporter), project, iid, posted.note.id, { body: "edited by author" });
    expect(edited.note.body).toBe("edited by author");
    const unchanged = await updateNote(userContext(handle.db, reporter), project, iid, posted.note.id, {});
    expect(unchanged.note.body).toBe("edited by author");
    expect((await updateNote(userContext(handle.db, maintainer), project, iid, posted.note.id, { body: "moderated" })).note.body).toBe("moderated");
    const [event] = await handle.db.select().from(events).where(and(eq(events.targetType, "Note"), eq(events.targetId, posted.note.id)));
    expect(event?.data).toMatchObject({ note: { id: posted.note.id, body: "moderated" } });

    const projectId = Number(project);
    const countBefore = (await maintainedEventCount(handle.db, projectId));
    await deleteNote(userContext(handle.db, admin), project, iid, posted.note.id);
    expect(await handle.db.select().from(notes).where(eq(notes.id, posted.note.id))).toEqual([]);
    expect(await handle.db.select().from(events).where(and(eq(events.targetType, "Note"), eq(events.targetId, posted.note.id)))).toEqual([]);
    expect((await maintainedEventCount(handle.db, projectId))).toBe(countBefore - 1);
    await deleteNote(userContext(handle.db, owner), project, iid, ownersNote.note.id);
    await expect(getNote(userContext(handle.db, owner), project, iid, ownersNote.note.id)).rejects.toBeInstanceOf(NotFoundError);
  });
  it("closing and reopening write system notes by whoever did it, kept apart from comments and without comment events", async () => {
    const { owner, maintainer, project, iid } = await team();
    await createNote(userContext(handle.db, owner), project, iid, { body: "a comment" });
    await updateIssue(userContext(handle.db, maintainer), project, iid, { stateEvent: "close" });
    await updateIssue(userContext(handle.db, maintainer), project, iid, { stateEvent: "close" });
    await updateIssue(userContext(handle.db, owner), project, iid, { stateEvent: "reopen" });
    const timeline = (await listIssueNotes(anonymousTestContext(handle.db), project, iid)).notes.items;
    expect(timeline.map(({ note, author }) => [note.body, note.system, author.id])).toEqual([
      ["a comment", false, owner.id],
      ["closed", true, maintainer.id],
      ["reopened", true, owner.id],
    ]);
    const activity = await listNotes(anonymousTestContext(handle.db), project, iid, { activityFilter: "only_activity", sort: "asc" }, pageRequest({}));
    expect(activity.items.map(({ note }) => note.body)).toEqual(["closed", "reopened"]);
    const systemNoteIds = timeline.filter(({ note }) => note.system).map(({ note }) => note.id);
    const noteEvents = await handle.db.select().from(events).where(eq(events.targetType, "Note"));
    expect(noteEvents.filter((event) => systemNoteIds.includes(event.targetId!))).toEqual([]);
  });

  it("keeps each issue's comment counts as comments come and go, and the issue shows them to each reader", async () => {
    const { owner, reporter, guest, project, iid } = await team();
    const counts = async () => {
      const [issue] = await handle.db.select({ id: issues.id }).from(issues).where(and(eq(issues.projectId, Number(project)), eq(issues.iid, iid)));
      const [row] = await handle.db.select().from(issueCommentCounts).where(eq(issueCommentCounts.issueId, issue!.id));
      return row ? { comments: row.comments, internalComments: row.internalComments } : null;
    };
    const shown = async (user: UserRow) => (await listIssueNotes(userContext(handle.db, user), project, iid)).issueView.userNotesCount;
    expect(await counts()).toBeNull();
    await createNote(userContext(handle.db, owner), project, iid, { body: "one" });
    const { note: internal } = await createNote(userContext(handle.db, reporter), project, iid, { body: "two", internal: true });
    const { note: gone } = await createNote(userContext(handle.db, reporter), project, iid, { body: "three" });
    // System notes are no comments.
    await updateIssue(userContext(handle.db, owner), project, iid, { stateEvent: "close" });
    expect(await counts()).toEqual({ comments: 2, internalComments: 1 });
    expect([await shown(owner), await shown(reporter), await shown(guest)]).toEqual([3, 3, 2]);
    await deleteNote(userContext(handle.db, reporter), project, iid, gone.id);
    await handle.db.update(notes).set({ internal: false }).where(eq(notes.id, internal.id));
    expect(await counts()).toEqual({ comments: 2, internalComments: 0 });
    expect(await shown(guest)).toBe(2);
  });

  it("the issue page shows a hundred notes at a time, oldest first, with the total and the next page", async () => {
    const { owner, project, iid } = await team();
    const [issue] = await handle.db.select().from(issues).where(and(eq(issues.projectId, Number(project)), eq(issues.iid, iid)));
    // 150 comments in order, written at once (the API would take a while).
    await handle.db.insert(notes).values(
      Array.from({ length: 150 }, (_, index) => ({
        projectId: Number(project),
        issueId: issue!.id,
        authorId: owner.id,
        body: `comment ${index + 1}`,
        createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, index)),
        updatedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, index)),
      })),
    );
    const first = await listIssueNotes(userContext(handle.db, owner), project, iid);
    expect(first.issueView.userNotesCount).toBe(150);
    expect(first.notes.items.map(({ note }) => note.body)).toEqual(Array.from({ length: 100 }, (_, index) => `comment ${index + 1}`));
    expect(first.notes).toMatchObject({ total: 150, hasNext: true });
    const second = await listIssueNotes(userContext(handle.db, owner), project, iid, 2);
    expect(second.notes.items.map(({ note }) => note.body)).toEqual(Array.from({ length: 50 }, (_, index) => `comment ${index + 101}`));
    expect(second.notes).toMatchObject({ total: 150, hasNext: false });
    // Written without HTML, as before the renderer stored any: rendered when first shown.
    expect(second.notes.items.map(({ html }) => html)).toEqual(Array.from({ length: 50 }, (_, index) => `<p>comment ${index + 101}</p>`));
  });
});
