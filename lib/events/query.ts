import "server-only";
import { and, asc, count, desc, eq, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { literalLimit } from "@/lib/db";
import { accessLevels, eventActions, events, projectEventCounts, projectMembers, projects, users, type EventAction, type UserRow } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { isMemberOf, projectVisibleTo } from "@/lib/projects/access";
import { getVisibleProject } from "@/lib/projects/projects";
import { getUserByIdOrUsername } from "@/lib/users/users";
import { eventJson } from "./serialize";

/** Filter values clients send (lower case) and the stored target types they match. */
export const eventTargetTypeFilters = {
  issue: "Issue",
  milestone: "Milestone",
  merge_request: "MergeRequest",
  note: "Note",
  project: "Project",
  snippet: "Snippet",
  user: "User",
} as const;
export type EventTargetTypeFilter = keyof typeof eventTargetTypeFilters;
export { eventActions };

export interface EventFilters {
  action?: EventAction;
  targetType?: EventTargetTypeFilter;
  /** YYYY-MM-DD: only events before the start of that day (UTC). */
  before?: string;
  /** YYYY-MM-DD: only events after the end of that day (UTC). */
  after?: string;
  sort?: "asc" | "desc";
}

/** Offset pages (`page`/`per_page`) or keyset pages (`id_before`/`id_after` relative to an event). */
export type EventPage = { kind: "offset"; page: PageRequest } | { kind: "keyset"; perPage: number; idBefore?: number; idAfter?: number };

/** One event of a page: its id (for keyset links) and its JSON as the API shows it. */
export interface EventItem {
  id: number;
  json: string;
}

export interface EventList {
  items: EventItem[];
  /** Total matching events for offset pages; null for keyset pages, which never count. */
  total: number | null;
  /** For keyset pages: whether another page follows in the requested order. */
  hasMore: boolean;
}

/**
 * Which events an actor may see, as SQL (so pages are full and totals exact): events of projects they can see;
 * pushes only where they may read the code; events about confidential issues only for the issue's author and
 * Reporters and above.
 */
function eventVisibleTo(ctx: Ctx): SQL {
  const user = actingUser(ctx);
  if (ctx.actor.kind === "system" || user?.isAdmin) return sql`true`;
  const memberLevel = user
    ? sql`coalesce((select ${projectMembers.accessLevel} from ${projectMembers} where ${projectMembers.projectId} = ${events.projectId} and ${projectMembers.userId} = ${user.id}), 0)`
    : sql`0`;
  const codeReadable = or(sql`${projects.visibility} <> 'private'`, sql`${memberLevel} >= ${accessLevels.reporter}`)!;
  const issueReadable = sql`(${events.issueId} is null or exists (select 1 from issues i where i.id = ${events.issueId} and (not i.confidential${
    user ? sql` or i.author_id = ${user.id}` : sql``
  } or ${memberLevel} >= ${accessLevels.reporter})))`;
  return and(projectVisibleTo(ctx.actor), or(sql`${events.action} <> 'pushed'`, codeReadable), issueReadable)!;
}

function dayStart(day: string, offsetDays = 0): Date {
  const start = new Date(`${day}T00:00:00.000Z`);
  start.setUTCDate(start.getUTCDate() + offsetDays);
  return start;
}

function filterConditions(filters: EventFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.action) conditions.push(eq(events.action, filters.action));
  if (filters.targetType) conditions.push(eq(events.targetType, eventTargetTypeFilters[filters.targetType]));
  if (filters.before) conditions.push(lt(events.createdAt, dayStart(filters.before)));
  // Through the column, so the driver gets the timestamp in its own format (a raw Date fails on postgres-js).
  if (filters.after) conditions.push(gte(events.createdAt, dayStart(filters.after, 1)));
  return conditions;
}

/**
 * `knownTotal`: the caller already knows how many events match (a project's maintained count), so the offset page
 * need not count them.
 */
async function queryEvents(ctx: Ctx, scope: SQL, filters: EventFilters, page: EventPage, knownTotal?: () => Promise<number>): Promise<EventList> {
  const base = [scope, eventVisibleTo(ctx), ...filterConditions(filters)];
  const ascending = filters.sort === "asc";
  const order = ascending ? [asc(events.createdAt), asc(events.id)] : [desc(events.createdAt), desc(events.id)];
  const select = () =>
    ctx.db
      .select({ id: events.id, json: eventJson() })
      .from(events)
      .innerJoin(projects, eq(projects.id, events.projectId))
      .innerJoin(users, eq(users.id, events.authorId));

  if (page.kind === "keyset") {
    const cursorId = page.idAfter ?? page.idBefore;
    const conditions = [...base];
    if (cursorId !== undefined) {
      // Rows after the cursor event in (created_at, id) order; id_after walks up, id_before walks down. The cursor's
      // position is read first so the page query is a plain index range. If the cursor event is gone (retention
      // deleted it), ids, which grow with time, stand in for the position.
      const [cursor] = await ctx.db.select({ createdAt: events.createdAt, id: events.id }).from(events).where(eq(events.id, cursorId));
      const comparison = page.idAfter !== undefined ? sql`>` : sql`<`;
      conditions.push(
        cursor
          ? sql`(${events.createdAt}, ${events.id}) ${comparison} (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`
          : sql`${events.id} ${comparison} ${cursorId}`,
      );
    }
    const rows = await select()
      .where(and(...conditions))
      .orderBy(...order)
      .limit(literalLimit(page.perPage + 1));
    return { items: rows.slice(0, page.perPage), total: null, hasMore: rows.length > page.perPage };
  }

  const where = and(...base);
  const countMatching = async () => {
    const [totals] = await ctx.db.select({ total: count() }).from(events).innerJoin(projects, eq(projects.id, events.projectId)).where(where);
    return totals?.total ?? 0;
  };
  const [rows, total] = await Promise.all([
    select().where(where).orderBy(...order).limit(literalLimit(page.page.perPage)).offset(page.page.offset),
    (knownTotal ?? countMatching)(),
  ]);
  return { items: rows, total, hasMore: page.page.offset + rows.length < total };
}

/** `GET /events`: the caller's own events, or with `scope=all` everything in the projects they are a member of. */
export async function listOwnEvents(ctx: Ctx, scopeAll: boolean, filters: EventFilters, page: EventPage): Promise<EventList> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (!scopeAll) return queryEvents(ctx, eq(events.authorId, user.id), filters, page);
  const knownTotal = isUnfiltered(filters) ? () => memberProjectsEventCount(ctx, user) : undefined;
  return queryEvents(ctx, isMemberOf(user.id), filters, page, knownTotal);
}

/** `GET /users/:id/events`: what a user did, as far as the caller may see. */
export async function listUserEvents(ctx: Ctx, userReference: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const user = await getUserByIdOrUsername(ctx, userReference);
  return queryEvents(ctx, eq(events.authorId, user.id), filters, page);
}

/** `GET /projects/:id/events`. */
export async function listProjectEvents(ctx: Ctx, projectReference: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const view = await getVisibleProject(ctx, projectReference);
  // Reporters and above see every event of the project, so with no filter its maintained count is their total.
  const seesEverything = (view.accessLevel ?? 0) >= accessLevels.reporter;
  const knownTotal = isUnfiltered(filters) && seesEverything ? () => projectEventCount(ctx, view.project.id) : undefined;
  return queryEvents(ctx, eq(events.projectId, view.project.id), filters, page, knownTotal);
}


async function projectEventCount(ctx: Ctx, projectId: number): Promise<number> {
  const [row] = await ctx.db
    .select({ eventCount: projectEventCounts.eventCount })
    .from(projectEventCounts)
    .where(eq(projectEventCounts.projectId, projectId));
  return row?.eventCount ?? 0;
}

function isUnfiltered(filters: EventFilters): boolean {
  return !filters.action && !filters.targetType && !filters.before && !filters.after;
}

/**
 * `scope=all` totals without counting every row: the maintained counts of the projects where the caller sees every
 * event (Reporter and above, or admin), plus a real count only in the projects where they are a Guest.
 */
async function memberProjectsEventCount(ctx: Ctx, user: UserRow): Promise<number> {
  const fullAccess = user.isAdmin ? sql`true` : sql`${projectMembers.accessLevel} >= ${accessLevels.reporter}`;
  const [full] = await ctx.db
    .select({ total: sql<string>`coalesce(sum(${projectEventCounts.eventCount}), 0)` })
    .from(projectEventCounts)
    .innerJoin(projectMembers, and(eq(projectMembers.projectId, projectEventCounts.projectId), eq(projectMembers.userId, user.id)))
    .where(fullAccess);
  let partial = 0;
  if (!user.isAdmin) {
    const guestProjects = sql`${events.projectId} in (select ${projectMembers.projectId} from ${projectMembers} where ${projectMembers.userId} = ${user.id} and ${projectMembers.accessLevel} < ${accessLevels.reporter})`;
    const [counted] = await ctx.db
      .select({ total: count() })
      .from(events)
      .innerJoin(projects, eq(projects.id, events.projectId))
      .where(and(guestProjects, eventVisibleTo(ctx)));
    partial = counted?.total ?? 0;
  }
  return Number(full?.total ?? 0) + partial;
}
