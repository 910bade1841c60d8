import "server-only";
import { and, eq } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import type { Executor } from "@/lib/db";
import { internalIdCte, internalIdTaken } from "@/lib/db/internal-ids";
import { alerts, events, issueColumns, issues, milestones, notes, users, type IssueRow, type UserRow } from "@/lib/db/schema";
import { NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { deleteEvents, recordEvent } from "@/lib/events/record";
import { getProjectWithAbility, getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { assignableUsers, setIssueAssignees } from "./assignees";
import { withIssueDetail, type IssueDetails } from "./issue-details";
import { splitLabelNames } from "./label-rules";
import { findOrCreateLabels, labelsOfIssues, labelsTitled, setIssueLabels, validLabelTitles } from "./labels";
import { renderForSave, type RenderedText } from "./rendered-text";
import { descriptionProblem, titleProblem } from "./text-limits";
import { issueReadableBy } from "./visibility";
import { bareIssueState, issueHooks, issueListeners, issueStateOf, projectTakesIssueEvents } from "@/lib/webhooks/events";

export { issueReadableBy } from "./visibility";

export interface IssueView {
  view: ProjectView;
  issue: IssueRow;
  author: UserRow;
}

/**
 * Who an issue is for and what it is filed under. Labels are names (created in the project when missing); assignees
 * are user ids, of which those who cannot read the project's issues are dropped (`[0]` or `[]` assigns nobody); a
 * milestone id that is 0, null or not one of the project's clears the milestone, as GitLab does.
 */
export interface IssueMetadata {
  labels?: string[];
  assigneeIds?: number[];
  milestoneId?: number | null;
  /** `YYYY-MM-DD`, or null to clear. */
  dueDate?: string | null;
}

export interface NewIssue extends IssueMetadata {
  title: string;
  description?: string | null;
  confidential?: boolean;
  issueType?: "issue" | "incident";
}

/** An issue's or a milestone's title as it is stored, or the `400` GitLab answers for it (`titleProblem`). */
export function validateTitle(title: string): string {
  const problem = titleProblem(title);
  if (problem) throw new ValidationError({ title: [problem] });
  return title.trim();
}

function validateDescription(description: string | null | undefined): void {
  const problem = descriptionProblem(description);
  if (problem) throw new ValidationError({ description: [problem] });
}

/**
 * Inserts an issue and records `created` (shown as "opened") in the caller's transaction. Without `renderedDescription`
 * (incidents opened by alerts) the description is rendered when the issue is first shown. `alongside` writes what
 * else goes with the new issue (labels, hooks) concurrently with its event, so their statements share round trips
 * while the project's issue counter is locked; what it answers (a row it wrote) comes back beside the issue.
 */
export async function insertIssue<Alongside>(
  tx: Executor,
  view: Pick<ProjectView, "project">,
  author: UserRow,
  input: NewIssue & { milestoneId?: number | null; renderedDescription?: RenderedText },
  now: Date,
  alongside: (issue: IssueRow) => Promise<Alongside>,
): Promise<{ issue: IssueRow; alongside: Alongside }> {
  const [issue] = await tx
    .with(internalIdCte(tx, view.project.id, "issues"))
    .insert(issues)
    .values({
      projectId: view.project.id,
      iid: internalIdTaken,
      title: validateTitle(input.title),
      description: input.description ?? null,
      descriptionHtml: input.renderedDescription?.html ?? null,
      cachedMarkdownVersion: input.renderedDescription?.version ?? null,
      confidential: input.confidential ?? false,
      issueType: input.issueType ?? "issue",
      milestoneId: input.milestoneId ?? null,
      dueDate: input.dueDate ?? null,
      authorId: author.id,
      createdAt: now,
      updatedAt: now,
    })
    .returning(issueColumns);
  if (!issue) throw new Error("insert into issues returned no row");
  const [, written] = await Promise.all([recordIssueEvent(tx, view, issue, author.id, "created", now), alongside(issue)]);
  return { issue, alongside: written };
}

/** The milestone an issue may be filed under: one of the project's, else none (GitLab clears unknown ids). */
async function projectMilestoneId(db: Executor, view: ProjectView, milestoneId: number | null): Promise<number | null> {
  if (milestoneId === null || milestoneId <= 0 || milestoneId > 2_147_483_647) return null;
  const [milestone] = await db
    .select({ id: milestones.id })
    .from(milestones)
    .where(and(eq(milestones.projectId, view.project.id), eq(milestones.id, milestoneId)));
  return milestone?.id ?? null;
}

/** The assignees to set, or undefined to leave them as they are (none asked for, or none of those asked may be). */
async function assigneesToSet(ctx: Ctx, view: ProjectView, requested: number[] | undefined): Promise<number[] | undefined> {
  if (requested === undefined) return undefined;
  if (requested.length === 0 || (requested.length === 1 && requested[0] === 0)) return [];
  const assignable = await assignableUsers(ctx.db, view, requested, ctx.now);
  return assignable.length > 0 ? assignable : undefined;
}

/**
 * `POST /projects/:id/issues` (Reporter+), with its labels, assignees, milestone and due date, in one transaction.
 * The description is rendered before the transaction begins, so no render holds a connection.
 */
export async function createIssue(ctx: Ctx, projectReference: string, input: NewIssue): Promise<IssueDetails> {
  const author = actingUser(ctx);
  if (!author) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "createIssue");
  validateTitle(input.title);
  validateDescription(input.description);
  const assigneeIds = await assigneesToSet(ctx, view, input.assigneeIds);
  const milestoneId = input.milestoneId === undefined ? null : await projectMilestoneId(ctx.db, view, input.milestoneId);
  // Checked before the transaction: a refused request holds no connection and locks no counter.
  const labelNames = validLabelTitles(splitLabelNames(input.labels ?? []));
  const renderedDescription = await renderForSave(input.description ?? null);
  const { issue } = await ctx.db.transaction(async (tx) => {
    const listeners = issueListeners(tx, { projectId: view.project.id, issue: { confidential: input.confidential ?? false, issueType: input.issueType ?? "issue" }, action: "open", now: ctx.now });
    const bare = labelNames.length === 0 && !assigneeIds?.length;
    return insertIssue(tx, view, author, { ...input, milestoneId, renderedDescription }, ctx.now, async (inserted) => {
      if (labelNames.length > 0) await setIssueLabels(tx, inserted.id, (await findOrCreateLabels(tx, view.project.id, labelNames, ctx.now)).map((label) => label.id));
      if (assigneeIds) await setIssueAssignees(tx, inserted.id, assigneeIds);
      await issueHooks(tx, { view, actor: author, before: null, after: bare ? bareIssueState(inserted) : undefined, issue: inserted, action: "open", now: ctx.now, listeners });
    });
  });
  return withIssueDetail(ctx, { view, issue, author });
}

export async function findReadableIssue(ctx: Ctx, view: ProjectView, iid: number): Promise<IssueView> {
  const [row] = await ctx.db
    .select({ issue: issueColumns, author: users })
    .from(issues)
    .innerJoin(users, eq(users.id, issues.authorId))
    .where(and(eq(issues.projectId, view.project.id), eq(issues.iid, iid), issueReadableBy(ctx, view)));
  if (!row) throw new NotFoundError("Issue");
  return { view, ...row };
}

/** `GET /projects/:id/issues/:issue_iid`. */
export async function getIssue(ctx: Ctx, projectReference: string, iid: number): Promise<IssueDetails> {
  return withIssueDetail(ctx, await findReadableIssue(ctx, await getVisibleProject(ctx, projectReference), iid));
}

export interface IssueChanges extends IssueMetadata {
  title?: string;
  description?: string | null;
  confidential?: boolean;
  stateEvent?: "close" | "reopen";
  /** Label names added to those the issue keeps (after `labels`, if given), created when missing. */
  addLabels?: string[];
  /** Label names taken off (last); names the project lacks are ignored. */
  removeLabels?: string[];
}

/** The label ids an issue ends up with: `labels` replaces, then `addLabels` adds, then `removeLabels` takes away. */
async function labelIdsAfter(tx: Executor, view: ProjectView, issueId: number, changes: IssueChanges, now: Date): Promise<number[] | undefined> {
  if (changes.labels === undefined && changes.addLabels === undefined && changes.removeLabels === undefined) return undefined;
  const ids =
    changes.labels === undefined
      ? ((await labelsOfIssues(tx, [issueId])).get(issueId) ?? []).map((label) => label.id)
      : (await findOrCreateLabels(tx, view.project.id, splitLabelNames(changes.labels), now)).map((label) => label.id);
  const kept = new Set(ids);
  for (const label of await findOrCreateLabels(tx, view.project.id, splitLabelNames(changes.addLabels ?? []), now)) kept.add(label.id);
  for (const label of await labelsTitled(tx, view.project.id, splitLabelNames(changes.removeLabels ?? []))) kept.delete(label.id);
  return [...kept];
}

/**
 * `PUT /projects/:id/issues/:issue_iid`: Reporters edit; closing and reopening need Developer. Each state change is
 * recorded as `closed` / `reopened`, as an event and as a system note in the issue's timeline, in the same transaction.
 * A changed description is rendered before the transaction begins.
 */
export async function updateIssue(ctx: Ctx, projectReference: string, iid: number, changes: IssueChanges): Promise<IssueDetails> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, changes.stateEvent ? "closeIssue" : "updateIssue");
  const current = await findReadableIssue(ctx, view, iid);
  validateDescription(changes.description);
  const descriptionChanged = changes.description !== undefined && changes.description !== current.issue.description;
  const renderedDescription = descriptionChanged ? await renderForSave(changes.description ?? null) : undefined;
  const assigneeIds = await assigneesToSet(ctx, view, changes.assigneeIds);
  const milestoneId = changes.milestoneId === undefined ? current.issue.milestoneId : await projectMilestoneId(ctx.db, view, changes.milestoneId);
  const issue = await ctx.db.transaction(async (tx) => {
    const closing = changes.stateEvent === "close" && current.issue.state === "opened";
    const reopening = changes.stateEvent === "reopen" && current.issue.state === "closed";
    const before = (await projectTakesIssueEvents(tx, view.project.id, ctx.now)) ? await issueStateOf(tx, current.issue) : null;
    const [updated] = await tx
      .update(issues)
      .set({
        title: changes.title === undefined ? current.issue.title : validateTitle(changes.title),
        ...(renderedDescription
          ? { description: changes.description, descriptionHtml: renderedDescription.html, cachedMarkdownVersion: renderedDescription.version }
          : {}),
        confidential: changes.confidential ?? current.issue.confidential,
        milestoneId,
        dueDate: changes.dueDate === undefined ? current.issue.dueDate : changes.dueDate,
        ...(closing ? { state: "closed" as const, closedAt: ctx.now, closedById: actor.id } : {}),
        ...(reopening ? { state: "opened" as const, closedAt: null, closedById: null } : {}),
        updatedAt: ctx.now,
      })
      .where(eq(issues.id, current.issue.id))
      .returning(issueColumns);
    if (!updated) throw new NotFoundError("Issue");
    const labelIds = await labelIdsAfter(tx, view, updated.id, changes, ctx.now);
    if (labelIds) await setIssueLabels(tx, updated.id, labelIds);
    if (assigneeIds) await setIssueAssignees(tx, updated.id, assigneeIds);
    if (closing || reopening) await recordIssueStateChange(tx, view, updated, actor.id, closing ? "closed" : "reopened", ctx.now);
    if (before) await issueHooks(tx, { view, actor, before, issue: updated, action: closing ? "close" : reopening ? "reopen" : "update", now: ctx.now });
    return updated;
  });
  return withIssueDetail(ctx, { view, issue, author: current.author });
}

/**
 * `DELETE /projects/:id/issues/:issue_iid` (Owners and admins): the issue goes with its comments, labels and
 * assignments, and so do its events and its comments' events (with the project's event count); an alert it was the
 * incident of keeps the alert but loses the link.
 */
export async function deleteIssue(ctx: Ctx, projectReference: string, iid: number): Promise<void> {
  if (!actingUser(ctx)) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "deleteIssue");
  const { issue } = await findReadableIssue(ctx, view, iid);
  await ctx.db.transaction(async (tx) => {
    // Through the project's events index: events have none on issue_id.
    await deleteEvents(tx, and(eq(events.projectId, view.project.id), eq(events.issueId, issue.id))!);
    await tx.update(alerts).set({ issueId: null }).where(and(eq(alerts.projectId, view.project.id), eq(alerts.issueId, issue.id)));
    await tx.delete(issues).where(eq(issues.id, issue.id));
  });
}

/** An Issue event (`created` reads "opened" in feeds); also used when alerts close their incidents. */
export async function recordIssueEvent(
  tx: Executor,
  view: Pick<ProjectView, "project">,
  issue: IssueRow,
  actorId: number,
  action: "created" | "closed" | "reopened",
  now: Date,
): Promise<void> {
  await recordEvent(tx, {
    projectId: view.project.id,
    authorId: actorId,
    action,
    targetType: "Issue",
    targetId: issue.id,
    targetIid: issue.iid,
    targetTitle: issue.title,
    issueId: issue.id,
    createdAt: now,
  });
}

/**
 * A close or reopen: its event, and the system note GitLab writes in the issue's timeline (the note's body is the
 * action). System notes have no `commented` event of their own.
 */
export async function recordIssueStateChange(
  tx: Executor,
  view: Pick<ProjectView, "project">,
  issue: IssueRow,
  actorId: number,
  action: "closed" | "reopened",
  now: Date,
): Promise<void> {
  await recordIssueEvent(tx, view, issue, actorId, action, now);
  await tx.insert(notes).values({ projectId: view.project.id, issueId: issue.id, authorId: actorId, body: action, system: true, createdAt: now, updatedAt: now });
}
