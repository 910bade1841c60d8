import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { listPage, type Executor, type ListPage } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { fuzzySearch } from "@/lib/db/like";
import { issueLabels, labels, type LabelRow } from "@/lib/db/schema";
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { numericReference } from "@/lib/api/param-types";
import { can } from "@/lib/projects/policy";
import { getProjectWithAbility, getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { defaultLabelColor, labelTitleProblem, normalizeLabelColor } from "./label-rules";
import { confidentialIssuesWrittenBy } from "./visibility";

/** A label with, when asked for (`with_counts`), how many of the issues the caller may read carry it. */
export interface LabelView {
  label: LabelRow;
  counts?: { openIssues: number; closedIssues: number };
}

export interface LabelInput {
  name?: string;
  color?: string;
  description?: string | null;
}

function validTitle(title: string): string {
  const problem = labelTitleProblem(title);
  if (problem) throw new ValidationError({ title: [problem] });
  return title.trim();
}

/** The titles, trimmed, or a validation error naming the first that no label may have. */
export function validLabelTitles(titles: readonly string[]): string[] {
  return titles.map(validTitle);
}

function validColor(color: string): string {
  const normalized = normalizeLabelColor(color);
  if (!normalized) throw new ValidationError({ color: ["must be a valid color code"] });
  return normalized;
}

function rethrowDuplicateTitle(error: unknown): never {
  if (violatedUniqueConstraint(error) === "labels_project_title_key") throw new ConflictError("Label already exists");
  throw error;
}

/** `GET /projects/:id/labels`: by title; `search` matches title or description (GitLab's fuzzy search, any length). */
export async function listLabels(
  ctx: Ctx,
  projectReference: string,
  options: { search?: string; withCounts?: boolean },
  page: PageRequest,
): Promise<ListPage<LabelView> & { view: ProjectView }> {
  const view = await getVisibleProject(ctx, projectReference);
  const where = and(eq(labels.projectId, view.project.id), options.search ? fuzzySearch([labels.title, labels.description], options.search, { minimumLength: 1 }) : undefined);
  const list = await listPage(
    ctx.db,
    page,
    // Titles are unique in a project: `labels_project_title_key` serves the order.
    ctx.db.select().from(labels).where(where).orderBy(asc(labels.title)).$dynamic(),
    ctx.db.select({ one: sql`1` }).from(labels).where(where).$dynamic(),
  );
  if (!options.withCounts) return { ...list, view, items: list.items.map((label) => ({ label })) };
  const counts = await issueCountsByLabel(ctx, view, list.items);
  return { ...list, view, items: list.items.map((label) => ({ label, counts: counts(label) })) };
}

/**
 * How many issues the caller may read carry each label, open and closed, from the labels' maintained counts: all their
 * issues for those who read confidential issues; else those that are not confidential, and the caller's own
 * confidential ones, counted among the issues they wrote.
 */
async function issueCountsByLabel(ctx: Ctx, view: ProjectView, page: LabelRow[]): Promise<(label: LabelRow) => NonNullable<LabelView["counts"]>> {
  if (can(view, "readConfidentialIssues")) return (label) => ({ openIssues: label.openIssuesCount, closedIssues: label.closedIssuesCount });
  const user = actingUser(ctx);
  const ownConfidential = user ? confidentialIssuesWrittenBy(user.id) : null;
  const own =
    ownConfidential && page.length > 0
      ? await ctx.db
          .select({
            labelId: issueLabels.labelId,
            openIssues: sql<number>`count(*) filter (where ${ownConfidential.state} = 'opened')`.mapWith(Number),
            closedIssues: sql<number>`count(*) filter (where ${ownConfidential.state} = 'closed')`.mapWith(Number),
          })
          .from(ownConfidential.from)
          .innerJoin(issueLabels, sql`${issueLabels.issueId} = ${ownConfidential.id}`)
          .where(
            and(
              sql`${ownConfidential.projectId} = ${view.project.id}`,
              inArray(issueLabels.labelId, page.map((label) => label.id)),
            ),
          )
          .groupBy(issueLabels.labelId)
      : [];
  const ownByLabel = new Map(own.map(({ labelId, ...counts }) => [labelId, counts]));
  return (label) => ({
    openIssues: label.openNonConfidentialIssuesCount + (ownByLabel.get(label.id)?.openIssues ?? 0),
    closedIssues: label.closedNonConfidentialIssuesCount + (ownByLabel.get(label.id)?.closedIssues ?? 0),
  });
}

/** A label of the project by id or, failing that, by title (`:name` in GitLab's label paths takes either). */
async function findLabel(db: Executor, view: ProjectView, idOrTitle: string): Promise<LabelRow> {
  const id = numericReference(idOrTitle);
  if (id !== null) {
    const [label] = await db.select().from(labels).where(and(eq(labels.projectId, view.project.id), eq(labels.id, id)));
    if (label) return label;
  }
  const [label] = await db.select().from(labels).where(and(eq(labels.projectId, view.project.id), eq(labels.title, idOrTitle)));
  if (!label) throw new NotFoundError("Label");
  return label;
}

/** `GET /projects/:id/labels/:name`. */
export async function getLabel(ctx: Ctx, projectReference: string, idOrTitle: string): Promise<LabelView> {
  const view = await getVisibleProject(ctx, projectReference);
  return { label: await findLabel(ctx.db, view, idOrTitle) };
}

/** `POST /projects/:id/labels` (Reporter+): 409 when the project has a label of that title already. */
export async function createLabel(ctx: Ctx, projectReference: string, input: Required<Pick<LabelInput, "name" | "color">> & LabelInput): Promise<LabelView> {
  if (!actingUser(ctx)) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageLabels");
  const title = validTitle(input.name);
  const color = validColor(input.color);
  try {
    const [label] = await ctx.db
      .insert(labels)
      .values({ projectId: view.project.id, title, color, description: input.description || null, createdAt: ctx.now, updatedAt: ctx.now })
      .returning();
    if (!label) throw new Error("insert into labels returned no row");
    return { label };
  } catch (error) {
    rethrowDuplicateTitle(error);
  }
}

/** `PUT /projects/:id/labels[/:name]` (Reporter+): renames (`new_name`), recolours, redescribes. */
export async function updateLabel(
  ctx: Ctx,
  projectReference: string,
  idOrTitle: string,
  changes: { newName?: string; color?: string; description?: string | null },
): Promise<LabelView> {
  if (!actingUser(ctx)) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageLabels");
  const current = await findLabel(ctx.db, view, idOrTitle);
  try {
    const [label] = await ctx.db
      .update(labels)
      .set({
        title: changes.newName === undefined ? current.title : validTitle(changes.newName),
        color: changes.color === undefined ? current.color : validColor(changes.color),
        description: changes.description === undefined ? current.description : changes.description || null,
        updatedAt: ctx.now,
      })
      .where(eq(labels.id, current.id))
      .returning();
    if (!label) throw new NotFoundError("Label");
    return { label };
  } catch (error) {
    rethrowDuplicateTitle(error);
  }
}

/** `DELETE /projects/:id/labels[/:name]` (Reporter+): the label leaves every issue that carried it. */
export async function deleteLabel(ctx: Ctx, projectReference: string, idOrTitle: string): Promise<void> {
  if (!actingUser(ctx)) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageLabels");
  const label = await findLabel(ctx.db, view, idOrTitle);
  await ctx.db.delete(labels).where(eq(labels.id, label.id));
}

/** The project's labels of these titles (those that exist). */
export async function labelsTitled(db: Executor, projectId: number, titles: readonly string[]): Promise<LabelRow[]> {
  if (titles.length === 0) return [];
  return db
    .select()
    .from(labels)
    .where(and(eq(labels.projectId, projectId), inArray(labels.title, [...titles])));
}

/**
 * The project's labels of these titles, creating those it lacks in the default colour, as GitLab does when an issue
 * names a label that does not exist yet. Concurrent creators of the same title end up with the same label.
 */
export async function findOrCreateLabels(tx: Executor, projectId: number, titles: readonly string[], now: Date): Promise<LabelRow[]> {
  if (titles.length === 0) return [];
  const checked = validLabelTitles(titles);
  await tx
    .insert(labels)
    .values(checked.map((title) => ({ projectId, title, color: defaultLabelColor, createdAt: now, updatedAt: now })))
    .onConflictDoNothing({ target: [labels.projectId, labels.title] });
  return labelsTitled(tx, projectId, checked);
}

/** Replaces an issue's labels with `labelIds`. */
export async function setIssueLabels(tx: Executor, issueId: number, labelIds: readonly number[]): Promise<void> {
  await tx.delete(issueLabels).where(eq(issueLabels.issueId, issueId));
  if (labelIds.length > 0) await tx.insert(issueLabels).values(labelIds.map((labelId) => ({ issueId, labelId })));
}

/** The labels of each issue, by issue id. */
export async function labelsOfIssues(db: Executor, issueIds: readonly number[]): Promise<Map<number, LabelRow[]>> {
  const byIssue = new Map<number, LabelRow[]>();
  if (issueIds.length === 0) return byIssue;
  const rows = await db
    .select({ issueId: issueLabels.issueId, label: labels })
    .from(issueLabels)
    .innerJoin(labels, eq(labels.id, issueLabels.labelId))
    .where(inArray(issueLabels.issueId, [...issueIds]));
  for (const { issueId, label } of rows) byIssue.set(issueId, [...(byIssue.get(issueId) ?? []), label]);
  return byIssue;
}
