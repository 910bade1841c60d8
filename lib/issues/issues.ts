import "server-only";
import { and, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { pageWithTotal, type Executor } from "@/lib/db";
import { nextInternalId } from "@/lib/db/internal-ids";
import { accessLevels, issues, users, type IssueRow, type UserRow } from "@/lib/db/schema";
import { NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/record";
import type { PageRequest } from "@/lib/api/pagination";
import { getProjectWithAccess, getVisibleProject, type ProjectView } from "@/lib/projects/projects";

export interface IssueView {
  view: ProjectView;
  issue: IssueRow;
  author: UserRow;
}

export interface NewIssue {
  title: string;
  description?: string | null;
  confidential?: boolean;
  issueType?: "issue" | "incident";
}

function validateTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === "" || trimmed.length > 255) throw new ValidationError({ title: ["must be 1 to 255 characters"] });
  return trimmed;
}

/**
 * Who may read an issue: anyone who sees the project, except for confidential issues, which only their author and
 * Reporters and above (admins included) see. As SQL on `issues`, so lists and counts agree.
 */
export function issueReadableBy(ctx: Ctx, view: ProjectView): SQL {
  const user = actingUser(ctx);
  if ((view.accessLevel ?? 0) >= accessLevels.reporter) return sql`true`;
  if (!user) return eq(issues.confidential, false);
  return or(eq(issues.confidential, false), eq(issues.authorId, user.id))!;
}

/** Inserts an issue and records `created` (shown as "opened") in the caller's transaction. */
export async function insertIssue(
  tx: Executor,
  view: Pick<ProjectView, "project">,
  author: UserRow,
  input: NewIssue,
  now: Date,
): Promise<IssueRow> {
  const iid = await nextInternalId(tx, view.project.id, "issues");
  const [issue] = await tx
    .insert(issues)
    .values({
      projectId: view.project.id,
      iid,
      title: validateTitle(input.title),
      description: input.description ?? null,
      confidential: input.confidential ?? false,
      issueType: input.issueType ?? "issue",
      authorId: author.id,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!issue) throw new Error("insert into issues returned no row");
  await recordIssueEvent(tx, view, issue, author.id, "created", now);
  return issue;
}

/** `POST /projects/:id/issues` (Reporter+). */
export async function createIssue(ctx: Ctx, projectReference: string, input: NewIssue): Promise<IssueView> {
  const author = actingUser(ctx);
  if (!author) throw new UnauthorizedError();
  const view = await getProjectWithAccess(ctx, projectReference, accessLevels.reporter);
  validateTitle(input.title);
  const issue = await ctx.db.transaction((tx) => insertIssue(tx, view, author, input, ctx.now));
  return { view, issue, author };
}

export async function findReadableIssue(ctx: Ctx, view: ProjectView, iid: number): Promise<IssueView> {
  const [row] = await ctx.db
    .select({ issue: issues, author: users })
    .from(issues)
    .innerJoin(users, eq(users.id, issues.authorId))
    .where(and(eq(issues.projectId, view.project.id), eq(issues.iid, iid), issueReadableBy(ctx, view)));
  if (!row) throw new NotFoundError("Issue");
  return { view, ...row };
}

/** `GET /projects/:id/issues/:issue_iid`. */
export async function getIssue(ctx: Ctx, projectReference: string, iid: number): Promise<IssueView> {
  return findReadableIssue(ctx, await getVisibleProject(ctx, projectReference), iid);
}

/** `GET /projects/:id/issues`: newest first; `state` filters opened/closed. */
export async function listIssues(
  ctx: Ctx,
  projectReference: string,
  filters: { state?: "opened" | "closed" | "all" },
  page: PageRequest,
): Promise<{ view: ProjectView; items: IssueView[]; total: number }> {
  const view = await getVisibleProject(ctx, projectReference);
  const conditions: SQL[] = [eq(issues.projectId, view.project.id), issueReadableBy(ctx, view)];
  if (filters.state && filters.state !== "all") conditions.push(eq(issues.state, filters.state));
  const where = and(...conditions);
  const { items, total } = await pageWithTotal(
    page,
    ctx.db
      .select({ issue: issues, author: users })
      .from(issues)
      .innerJoin(users, eq(users.id, issues.authorId))
      .where(where)
      .orderBy(desc(issues.createdAt), desc(issues.id))
      .$dynamic(),
    ctx.db.select({ total: count() }).from(issues).where(where),
  );
  return { view, items: items.map((row) => ({ view, ...row })), total };
}

export interface IssueChanges {
  title?: string;
  description?: string | null;
  confidential?: boolean;
  stateEvent?: "close" | "reopen";
}

/**
 * `PUT /projects/:id/issues/:issue_iid`: Reporters edit; closing and reopening need Developer. Each state change is
 * recorded as `closed` / `reopened` in the same transaction.
 */
export async function updateIssue(ctx: Ctx, projectReference: string, iid: number, changes: IssueChanges): Promise<IssueView> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const minimum = changes.stateEvent ? accessLevels.developer : accessLevels.reporter;
  const view = await getProjectWithAccess(ctx, projectReference, minimum);
  const current = await findReadableIssue(ctx, view, iid);
  return ctx.db.transaction(async (tx) => {
    const closing = changes.stateEvent === "close" && current.issue.state === "opened";
    const reopening = changes.stateEvent === "reopen" && current.issue.state === "closed";
    const [issue] = await tx
      .update(issues)
      .set({
        title: changes.title === undefined ? current.issue.title : validateTitle(changes.title),
        description: changes.description === undefined ? current.issue.description : changes.description,
        confidential: changes.confidential ?? current.issue.confidential,
        ...(closing ? { state: "closed" as const, closedAt: ctx.now, closedById: actor.id } : {}),
        ...(reopening ? { state: "opened" as const, closedAt: null, closedById: null } : {}),
        updatedAt: ctx.now,
      })
      .where(eq(issues.id, current.issue.id))
      .returning();
    if (!issue) throw new NotFoundError("Issue");
    if (closing || reopening) await recordIssueEvent(tx, view, issue, actor.id, closing ? "closed" : "reopened", ctx.now);
    return { view, issue, author: current.author };
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
