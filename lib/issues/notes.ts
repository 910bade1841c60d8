import "server-only";
import { actingUser, type Ctx } from "@/lib/context";
import { asc, eq } from "drizzle-orm";
import { accessLevels, notes, users, type NoteRow, type UserRow } from "@/lib/db/schema";
import { UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import { getProjectWithAccess, getVisibleProject } from "@/lib/projects/projects";
import { findReadableIssue, type IssueView } from "./issues";

export interface NoteView {
  issueView: IssueView;
  note: NoteRow;
  author: UserRow;
}

/** A snapshot of the note kept with its `commented` event, so event lists need no joins into history. */
export interface NoteEventData {
  note: { id: number; body: string; system: boolean; internal: boolean; noteable_id: number; noteable_iid: number; created_at: string; updated_at: string };
}

/**
 * `POST /projects/:id/issues/:issue_iid/notes` (Reporter+): a comment, recorded as `commented` on the Note, with
 * the issue's title as the event's target title.
 */
export async function createNote(ctx: Ctx, projectReference: string, issueIid: number, input: { body: string; internal?: boolean }): Promise<NoteView> {
  const author = actingUser(ctx);
  if (!author) throw new UnauthorizedError();
  const body = input.body.trim();
  if (body === "" || body.length > 1_000_000) throw new ValidationError({ body: ["can't be blank"] });
  const view = await getProjectWithAccess(ctx, projectReference, accessLevels.reporter);
  const issueView = await findReadableIssue(ctx, view, issueIid);
  const note = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(notes)
      .values({
        projectId: view.project.id,
        issueId: issueView.issue.id,
        authorId: author.id,
        body: input.body,
        internal: input.internal ?? false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    if (!inserted) throw new Error("insert into notes returned no row");
    const data: NoteEventData = {
      note: {
        id: inserted.id,
        body: inserted.body,
        system: inserted.system,
        internal: inserted.internal,
        noteable_id: issueView.issue.id,
        noteable_iid: issueView.issue.iid,
        created_at: inserted.createdAt.toISOString(),
        updated_at: inserted.updatedAt.toISOString(),
      },
    };
    await recordEvent(tx, {
      projectId: view.project.id,
      authorId: author.id,
      action: "commented",
      targetType: "Note",
      targetId: inserted.id,
      targetIid: inserted.id,
      targetTitle: issueView.issue.title,
      issueId: issueView.issue.id,
      data,
      createdAt: ctx.now,
    });
    return inserted;
  });
  return { issueView, note, author };
}

/** The comments on an issue the caller may read, oldest first (the issue page). */
export async function listIssueNotes(ctx: Ctx, projectReference: string, issueIid: number): Promise<{ issueView: IssueView; notes: { note: NoteRow; author: UserRow }[] }> {
  const issueView = await findReadableIssue(ctx, await getVisibleProject(ctx, projectReference), issueIid);
  const rows = await ctx.db
    .select({ note: notes, author: users })
    .from(notes)
    .innerJoin(users, eq(users.id, notes.authorId))
    .where(eq(notes.issueId, issueView.issue.id))
    .orderBy(asc(notes.createdAt), asc(notes.id));
  return { issueView, notes: rows };
}
