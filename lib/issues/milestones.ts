import "server-only";
import { and, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { listPage, type Executor, type ListPage } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { internalIdCte, internalIdTaken } from "@/lib/db/internal-ids";
import { fuzzySearch } from "@/lib/db/like";
import { events, issues, milestones, type MilestoneRow } from "@/lib/db/schema";
import { NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { recordEvent, type NewEvent } from "@/lib/events/record";
import { validateTitle } from "@/lib/issues/issues";
import type { PageRequest } from "@/lib/api/pagination";
import { getProjectWithAbility, getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { milestoneHooks } from "@/lib/webhooks/events";

export interface MilestoneView {
  view: ProjectView;
  milestone: MilestoneRow;
}

export interface MilestoneInput {
  title?: string;
  description?: string | null;
  dueDate?: string | null;
  startDate?: string | null;
  stateEvent?: "close" | "activate";
}

function milestoneEvent(view: ProjectView, milestone: MilestoneRow, authorId: number, action: NewEvent["action"], now: Date): NewEvent {
  return {
    projectId: view.project.id,
    authorId,
    action,
    targetType: "Milestone",
    targetId: milestone.id,
    targetIid: milestone.iid,
    targetTitle: milestone.title,
    createdAt: now,
  };
}

function rethrowDuplicateTitle(error: unknown): never {
  if (violatedUniqueConstraint(error) === "milestones_project_title_key") {
    throw new ValidationError({ title: ["already being used for another group or project milestone."] });
  }
  throw error;
}

/** `POST /projects/:id/milestones` (Reporter+), recorded as `created`. */
export async function createMilestone(ctx: Ctx, projectReference: string, input: MilestoneInput): Promise<MilestoneView> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageMilestones");
  const title = validateTitle(input.title ?? "");
  try {
    const milestone = await ctx.db.transaction(async (tx: Executor) => {
      const [inserted] = await tx
        .with(internalIdCte(tx, view.project.id, "milestones"))
        .insert(milestones)
        .values({
          projectId: view.project.id,
          iid: internalIdTaken,
          title,
          description: input.description ?? null,
          dueDate: input.dueDate ?? null,
          startDate: input.startDate ?? null,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })
        .returning();
      if (!inserted) throw new Error("insert into milestones returned no row");
      await recordEvent(tx, milestoneEvent(view, inserted, actor.id, "created", ctx.now));
      await milestoneHooks(tx, { view, milestone: inserted, action: "create", now: ctx.now });
      return inserted;
    });
    return { view, milestone };
  } catch (error) {
    rethrowDuplicateTitle(error);
  }
}

/** The project's milestone with this id, or with this number in the project (`{ iid }`, as its page's URL names it). */
async function findMilestone(ctx: Ctx, view: ProjectView, milestoneId: number | { iid: number }): Promise<MilestoneRow> {
  const key = typeof milestoneId === "number" ? eq(milestones.id, milestoneId) : eq(milestones.iid, milestoneId.iid);
  const [milestone] = await ctx.db
    .select()
    .from(milestones)
    .where(and(eq(milestones.projectId, view.project.id), key));
  if (!milestone) throw new NotFoundError("Milestone");
  return milestone;
}

export async function getMilestone(ctx: Ctx, projectReference: string, milestoneId: number): Promise<MilestoneView> {
  const view = await getVisibleProject(ctx, projectReference);
  return { view, milestone: await findMilestone(ctx, view, milestoneId) };
}

/** A milestone by its number in the project (`/:project/-/milestones/:iid`, its `web_url`), for anyone who sees the project. */
export async function getMilestoneByIid(ctx: Ctx, projectReference: string, iid: number): Promise<MilestoneView> {
  const view = await getVisibleProject(ctx, projectReference);
  return { view, milestone: await findMilestone(ctx, view, { iid }) };
}

/** `PUT /projects/:id/milestones/:milestone_id` (Reporter+): edits, and `close` / `activate` recorded as events. */
export async function updateMilestone(ctx: Ctx, projectReference: string, milestoneId: number, input: MilestoneInput): Promise<MilestoneView> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageMilestones");
  const current = await findMilestone(ctx, view, milestoneId);
  const closing = input.stateEvent === "close" && current.state === "active";
  const reopening = input.stateEvent === "activate" && current.state === "closed";
  try {
    const milestone = await ctx.db.transaction(async (tx: Executor) => {
      const [updated] = await tx
        .update(milestones)
        .set({
          title: input.title === undefined ? current.title : validateTitle(input.title),
          description: input.description === undefined ? current.description : input.description,
          dueDate: input.dueDate === undefined ? current.dueDate : input.dueDate,
          startDate: input.startDate === undefined ? current.startDate : input.startDate,
          state: closing ? "closed" : reopening ? "active" : current.state,
          updatedAt: ctx.now,
        })
        .where(eq(milestones.id, current.id))
        .returning();
      if (!updated) throw new NotFoundError("Milestone");
      if (closing || reopening) {
        await recordEvent(tx, milestoneEvent(view, updated, actor.id, closing ? "closed" : "reopened", ctx.now));
        await milestoneHooks(tx, { view, milestone: updated, action: closing ? "close" : "reopen", now: ctx.now });
      }
      return updated;
    });
    return { view, milestone };
  } catch (error) {
    rethrowDuplicateTitle(error);
  }
}

export interface MilestoneFilters {
  state?: "active" | "closed" | "all";
  iids?: number[];
  /** The exact title. */
  title?: string;
  /** Words in the title or the description (GitLab's fuzzy search). */
  search?: string;
  updatedBefore?: Date;
  updatedAfter?: Date;
}

/** `GET /projects/:id/milestones`: due soonest first (undated last), then newest. */
export async function listMilestones(
  ctx: Ctx,
  projectReference: string,
  filters: MilestoneFilters,
  page: PageRequest,
): Promise<ListPage<MilestoneView> & { view: ProjectView }> {
  const view = await getVisibleProject(ctx, projectReference);
  const iids = filters.iids?.filter((iid) => Number.isSafeInteger(iid) && Math.abs(iid) <= 2_147_483_647);
  const where = and(
    eq(milestones.projectId, view.project.id),
    filters.state && filters.state !== "all" ? eq(milestones.state, filters.state) : undefined,
    iids && filters.iids && filters.iids.length > 0 ? (iids.length > 0 ? inArray(milestones.iid, iids) : sql`false`) : undefined,
    filters.title !== undefined ? eq(milestones.title, filters.title) : undefined,
    filters.search ? fuzzySearch([milestones.title, milestones.description], filters.search) : undefined,
    filters.updatedBefore ? lte(milestones.updatedAt, filters.updatedBefore) : undefined,
    filters.updatedAfter ? gte(milestones.updatedAt, filters.updatedAfter) : undefined,
  );
  const list = await listPage(
    ctx.db,
    page,
    ctx.db
      .select()
      .from(milestones)
      .where(where)
      .orderBy(sql`${milestones.dueDate} asc nulls last`, desc(milestones.id))
      .$dynamic(),
    ctx.db.select({ one: sql`1` }).from(milestones).where(where).$dynamic(),
  );
  return { ...list, view, items: list.items.map((milestone) => ({ view, milestone })) };
}

/**
 * `DELETE /projects/:id/milestones/:milestone_id` (Reporter+), as GitLab's `Milestones::DestroyService`: its issues
 * lose the milestone, `destroyed` is recorded, and the milestone's events keep their titles but no longer point at it.
 */
export async function deleteMilestone(ctx: Ctx, projectReference: string, milestoneId: number): Promise<void> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, projectReference, "manageMilestones");
  const milestone = await findMilestone(ctx, view, milestoneId);
  await ctx.db.transaction(async (tx: Executor) => {
    await tx
      .update(issues)
      .set({ milestoneId: null, updatedAt: ctx.now })
      .where(and(eq(issues.projectId, view.project.id), eq(issues.milestoneId, milestone.id)));
    await recordEvent(tx, milestoneEvent(view, milestone, actor.id, "destroyed", ctx.now));
    await milestoneHooks(tx, { view, milestone, action: "delete", now: ctx.now });
    await tx
      .update(events)
      .set({ targetId: null })
      .where(and(eq(events.projectId, view.project.id), eq(events.targetType, "Milestone"), eq(events.targetId, milestone.id)));
    await tx.delete(milestones).where(eq(milestones.id, milestone.id));
  });
}
