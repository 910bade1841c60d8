import "server-only";
import { actingUser, type Ctx } from "@/lib/context";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { keyedListPage, type Executor, type ListPage, type OrderKey } from "@/lib/db";
import { events, issues, noteColumns, notes, users, type IssueRow, type NoteRow, type UserRow } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { deleteEvents, recordEvent } from "@/lib/events/record";
import { noteHooks } from "@/lib/webhooks/events";
import type { PageRequest } from "@/lib/api/pagination";
import { can } from "@/lib/projects/policy";
import { getProjectWithAbility, getVisibleProject } from "@/lib/projects/projects";
import { withIssueDetail, type IssueDetails } from "./issue-details";
import { findReadableIssue, type IssueView } from "./issues";
import { htmlToShow, renderForSave } from "./rendered-text";
import { noteBodyProblem } from "./text-limits";

export interface NoteView {
  issueView: IssueView;
  note: NoteRow;
  author: UserRow;
}

/** A snapshot of the note kept with its `commented` event, so event lists need no joins into history. */
export interface NoteEventData {
  note: { id: number; body: string; system: boolean; internal: boolean; noteable_id: number; noteable_iid: number; created_at: string; updated_at: string };
}

function noteEventData(note: NoteRow, issue: IssueRow): NoteEventData {
  return {
    note: {
      id: note.id,
      body: note.body,
      system: note.system,
      internal: note.internal,
      noteable_id: issue.id,
      noteable_iid: issue.iid,
      created_at: note.createdAt.toISOString(),
      updated_at: note.updatedAt.toISOString(),
    },
  };
}

/** The events about a note: its `commented` event (found through the project's events index). */
function eventsOfNote(note: NoteRow): SQL {
  return and(eq(events.projectId, note.projectId), eq(events.targetType, "Note"), eq(events.targetId, note.id))!;
}

function validBody(body: string): string {
  const problem = noteBodyProblem(body);
  if (problem) throw new ValidationError({ body: [problem] });
  return body;
}

/**
 * `POST /projects/:id/issues/:issue_iid/notes` (Reporter+): a comment, recorded as `commented` on the Note, with
 * the issue's title as the event's target title. An internal note, and so its event, is for those who may read
 * internal notes only (Reporter+ and admins, as on GitLab). The body is rendered before the transaction begins.
 */
export async function createNote(ctx: Ctx, projectReference: string, issueIid: number, input: { body: string; internal?: boolean }): Promise<NoteView> {
  const author = actingUser(ctx);
  if (!author) throw new UnauthorizedError();
  validBody(input.body);
  const view = await getProjectWithAbility(ctx, projectReference, "comment");
  const internal = input.internal ?? false;
  if (internal && !can(view, "createInternalNote")) throw new ForbiddenError();
  const issueView = await findReadableIssue(ctx, view, issueIid);
  const rendered = await renderForSave(input.body);
  const note = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(notes)
      .values({
        projectId: view.project.id,
        issueId: issueView.issue.id,
        authorId: author.id,
        body: input.body,
        noteHtml: rendered.html,
        cachedMarkdownVersion: rendered.version,
        internal,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning(noteColumns);
    if (!inserted) throw new Error("insert into notes returned no row");
    await recordEvent(tx, {
      projectId: view.project.id,
      authorId: author.id,
      action: "commented",
      targetType: "Note",
      targetId: inserted.id,
      targetIid: inserted.id,
      targetTitle: issueView.issue.title,
      issueId: issueView.issue.id,
      internal: inserted.internal,
      data: noteEventData(inserted, issueView.issue),
      createdAt: ctx.now,
    });
    await noteHooks(tx, { view, actor: author, note: inserted, issue: issueView.issue, action: "create", now: ctx.now });
    return inserted;
  });
  return { issueView, note, author };
}

/** The notes of an issue the caller may read: internal ones only for those who may read internal notes. */
function readableNotesOf(issueView: IssueView): SQL {
  return and(eq(notes.issueId, issueView.issue.id), can(issueView.view, "readInternalNotes") ? undefined : eq(notes.internal, false))!;
}

async function readableIssue(ctx: Ctx, projectReference: string, issueIid: number): Promise<IssueView> {
  return findReadableIssue(ctx, await getVisibleProject(ctx, projectReference), issueIid);
}

/** The issue page: the issue with its details and its description's HTML, and a page of its comments with theirs. */
export interface IssuePage {
  issueView: IssueDetails;
  /** Null when the issue has no description. */
  descriptionHtml: string | null;
  /** `html` is null for system notes, which are shown as their text. */
  notes: ListPage<{ note: NoteRow; author: UserRow; html: string | null }>;
}

/** How many notes the issue page shows at a time: a discussion may run to tens of thousands. */
export const issuePageNotesPerPage = 100;

/**
 * The issue page: the issue with its details, and a page of the notes on it the caller may read, oldest first
 * (internal ones only for those allowed), with the HTML stored for each text. A text without current HTML is rendered
 * now and its HTML stored (`htmlToShow`), unless the row changed meanwhile: the save that changed it stored its own.
 */
export async function listIssueNotes(ctx: Ctx, projectReference: string, issueIid: number, notesPage = 1): Promise<IssuePage> {
  const issueView = await readableIssue(ctx, projectReference, issueIid);
  const { issue } = issueView;
  const page = { page: notesPage, perPage: issuePageNotesPerPage, offset: (notesPage - 1) * issuePageNotesPerPage };
  const [details, [storedDescription], notePage] = await Promise.all([
    withIssueDetail(ctx, issueView),
    ctx.db.select({ html: issues.descriptionHtml, version: issues.cachedMarkdownVersion }).from(issues).where(eq(issues.id, issue.id)),
    readableNotePage(ctx, issueView, { sort: "asc" }, page),
  ]);
  const ids = notePage.items.map(({ note }) => note.id);
  const stored = ids.length === 0 ? [] : await ctx.db.select({ id: notes.id, html: notes.noteHtml, version: notes.cachedMarkdownVersion }).from(notes).where(inArray(notes.id, ids));
  const storedById = new Map(stored.map((row) => [row.id, row]));
  const [descriptionHtml, ...notesHtml] = await Promise.all([
    issue.description
      ? htmlToShow({ source: issue.description, html: storedDescription?.html ?? null, version: storedDescription?.version ?? null }, (html, version) =>
          ctx.db
            .update(issues)
            .set({ descriptionHtml: html, cachedMarkdownVersion: version, updatedAt: issue.updatedAt })
            .where(and(eq(issues.id, issue.id), eq(issues.updatedAt, issue.updatedAt))),
        )
      : null,
    ...notePage.items.map(({ note }) =>
      note.system
        ? null
        : htmlToShow({ source: note.body, html: storedById.get(note.id)?.html ?? null, version: storedById.get(note.id)?.version ?? null }, (rendered, renderedVersion) =>
            ctx.db
              .update(notes)
              .set({ noteHtml: rendered, cachedMarkdownVersion: renderedVersion, updatedAt: note.updatedAt })
              .where(and(eq(notes.id, note.id), eq(notes.updatedAt, note.updatedAt))),
          ),
    ),
  ]);
  return {
    issueView: details,
    descriptionHtml: descriptionHtml ?? null,
    notes: { ...notePage, items: notePage.items.map(({ note, author }, index) => ({ note, author, html: notesHtml[index] ?? null })) },
  };
}

export interface NoteListOptions {
  orderBy?: "created_at" | "updated_at";
  sort?: "asc" | "desc";
  /** GitLab's `activity_filter`: every note, comments only, or system notes only. */
  activityFilter?: "all_notes" | "only_comments" | "only_activity";
}

/** A page of the issue's notes the caller may read, in the order asked for. */
async function readableNotePage(ctx: Ctx, issueView: IssueView, options: NoteListOptions, page: PageRequest): Promise<ListPage<{ note: NoteRow; author: UserRow }>> {
  const where = and(
    readableNotesOf(issueView),
    options.activityFilter === "only_comments" ? eq(notes.system, false) : options.activityFilter === "only_activity" ? eq(notes.system, true) : undefined,
  );
  const descending = options.sort !== "asc";
  const order: OrderKey[] = [{ value: options.orderBy === "updated_at" ? notes.updatedAt : notes.createdAt, descending }, { value: notes.id, descending }];
  // A page's ids come from the `notes_issue_*` indexes alone (they carry `internal` and `system`), however deep.
  return keyedListPage(ctx.db, page, {
    order,
    branches: (keys) => [ctx.db.select(keys).from(notes).where(where).$dynamic()],
    rows: (pageKeys, key) =>
      ctx.db
        .select({ note: noteColumns, author: users })
        .from(pageKeys)
        .innerJoin(notes, sql`${notes.id} = ${key(1)}`)
        .innerJoin(users, eq(users.id, notes.authorId))
        .$dynamic(),
  });
}

/** `GET /projects/:id/issues/:issue_iid/notes`: newest first by default; internal notes only for those allowed. */
export async function listNotes(
  ctx: Ctx,
  projectReference: string,
  issueIid: number,
  options: NoteListOptions,
  page: PageRequest,
): Promise<ListPage<NoteView>> {
  const issueView = await readableIssue(ctx, projectReference, issueIid);
  const list = await readableNotePage(ctx, issueView, options, page);
  return { ...list, items: list.items.map((row) => ({ issueView, ...row })) };
}

/** A position in an issue's notes, oldest first: the note a cursor points at. */
export interface NotePosition {
  createdAt: Date;
  id: number;
}

/**
 * A window of an issue's notes, oldest first, as GraphQL connections page them: `first` notes after a position, or
 * the `last` notes before one. Each window is one range read of `notes_issue_created_idx`, however many notes come
 * before it.
 */
export interface NoteWindow {
  after?: NotePosition;
  before?: NotePosition;
  /** How many notes from the start of the range (the default), or from its end with `fromEnd`. */
  size: number;
  fromEnd?: boolean;
}

export async function listNotesInWindow(
  ctx: Ctx,
  projectReference: string,
  issueIid: number,
  window: NoteWindow,
): Promise<{ items: NoteView[]; hasMore: boolean }> {
  const issueView = await readableIssue(ctx, projectReference, issueIid);
  const position = (at: NotePosition) => sql`(${at.createdAt.toISOString()}::timestamptz, ${at.id}::integer)`;
  const noteKey = sql`(${notes.createdAt}, ${notes.id})`;
  const direction = window.fromEnd ? sql`desc` : sql`asc`;
  const rows = await ctx.db
    .select({ note: noteColumns, author: users })
    .from(notes)
    .innerJoin(users, eq(users.id, notes.authorId))
    .where(
      and(
        readableNotesOf(issueView),
        window.after ? sql`${noteKey} > ${position(window.after)}` : undefined,
        window.before ? sql`${noteKey} < ${position(window.before)}` : undefined,
      ),
    )
    .orderBy(sql`${notes.createdAt} ${direction}`, sql`${notes.id} ${direction}`)
    .limit(window.size + 1);
  const hasMore = rows.length > window.size;
  const taken = rows.slice(0, window.size);
  if (window.fromEnd) taken.reverse();
  return { items: taken.map((row) => ({ issueView, ...row })), hasMore };
}

/** A note of the issue the caller may read, or 404 `Note Not Found` (an internal note hidden from them included). */
async function findReadableNote(db: Executor, issueView: IssueView, noteId: number): Promise<{ note: NoteRow; author: UserRow }> {
  const [row] = await db
    .select({ note: noteColumns, author: users })
    .from(notes)
    .innerJoin(users, eq(users.id, notes.authorId))
    .where(and(readableNotesOf(issueView), eq(notes.id, noteId)));
  if (!row) throw new NotFoundError("Note");
  return row;
}

/** `GET /projects/:id/issues/:issue_iid/notes/:note_id`. */
export async function getNote(ctx: Ctx, projectReference: string, issueIid: number, noteId: number): Promise<NoteView> {
  const issueView = await readableIssue(ctx, projectReference, issueIid);
  return { issueView, ...(await findReadableNote(ctx.db, issueView, noteId)) };
}

/**
 * A note the caller may change: one they can read (others are 404) that is theirs, or anyone's for Maintainers and
 * above (GitLab's `admin_note`); system notes are nobody's to change.
 */
async function findManageableNote(ctx: Ctx, projectReference: string, issueIid: number, noteId: number): Promise<NoteView> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const issueView = await readableIssue(ctx, projectReference, issueIid);
  const found = await findReadableNote(ctx.db, issueView, noteId);
  const mayManage = found.note.authorId === user.id || can(issueView.view, "manageNotes");
  if (!mayManage || found.note.system) throw new ForbiddenError();
  return { issueView, ...found };
}

/**
 * `PUT /projects/:id/issues/:issue_iid/notes/:note_id`: a new body (none: nothing changes), rendered before the
 * transaction begins. The `commented` event's snapshot follows, so event lists show the comment as it now reads.
 */
export async function updateNote(ctx: Ctx, projectReference: string, issueIid: number, noteId: number, changes: { body?: string }): Promise<NoteView> {
  const current = await findManageableNote(ctx, projectReference, issueIid, noteId);
  if (changes.body === undefined) return current;
  const body = validBody(changes.body);
  const rendered = await renderForSave(body);
  const note = await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(notes)
      .set({ body, noteHtml: rendered.html, cachedMarkdownVersion: rendered.version, updatedAt: ctx.now })
      .where(eq(notes.id, current.note.id))
      .returning(noteColumns);
    if (!updated) throw new NotFoundError("Note");
    await tx.update(events).set({ data: noteEventData(updated, current.issueView.issue) }).where(eventsOfNote(updated));
    const editor = actingUser(ctx);
    if (editor) await noteHooks(tx, { view: current.issueView.view, actor: editor, note: updated, issue: current.issueView.issue, action: "update", now: ctx.now });
    return updated;
  });
  return { ...current, note };
}

/** `DELETE /projects/:id/issues/:issue_iid/notes/:note_id`: the note and its event go. */
export async function deleteNote(ctx: Ctx, projectReference: string, issueIid: number, noteId: number): Promise<void> {
  const { note } = await findManageableNote(ctx, projectReference, issueIid, noteId);
  await ctx.db.transaction(async (tx) => {
    await deleteEvents(tx, eventsOfNote(note));
    await tx.delete(notes).where(eq(notes.id, note.id));
  });
}
