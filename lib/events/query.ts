import "server-only";
import { and, eq, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { literal, placeholder, preparedStatements } from "@/lib/db";
import { eventActions, events, namespaces, projectEventCounts, projectMembers, projects, users, type EventAction } from "@/lib/db/schema";
import { NotFoundError, UnauthorizedError } from "@/lib/errors";
import { maxPerPage, type PageRequest } from "@/lib/api/pagination";
import { accessLevelIn, isMemberOf, membershipActive, projectVisibleTo, utcDay, viewerOf, type Viewer } from "@/lib/projects/access";
import { abilityMinimumLevels, type RoleAbility } from "@/lib/projects/policy";
import { parseProjectReference, projectNamed, type ProjectReference } from "@/lib/projects/projects";
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
 * Which events a viewer may see, as SQL over `events` joined to `projects` (so pages are full and totals exact):
 * events of projects they can see; pushes only where they may read the code; events about confidential issues only
 * for the issue's author and those who may read confidential issues; comments in internal notes only for those who
 * may read internal notes. The cheap test of each pair comes first: OR stops at it for most events.
 */
function eventVisibleTo(viewer: Viewer): SQL {
  if (viewer.kind === "everything") return sql`true`;
  const memberLevel = sql`coalesce(${accessLevelIn(viewer)}, 0)`;
  const allows = (ability: RoleAbility) => sql`${memberLevel} >= ${literal(abilityMinimumLevels[ability])}`;
  const codeReadable = or(sql`${projects.visibility} <> 'private'`, allows("readPrivateCode"))!;
  const issueReadable = sql`(${events.issueId} is null or exists (select 1 from issues i where i.id = ${events.issueId} and (not i.confidential${
    viewer.kind === "user" ? sql` or i.author_id = ${viewer.id}` : sql``
  } or ${allows("readConfidentialIssues")})))`;
  const noteReadable = or(sql`not ${events.internal}`, allows("readInternalNotes"))!;
  return and(projectVisibleTo(viewer), or(sql`${events.action} <> 'pushed'`, codeReadable), issueReadable, noteReadable)!;
}

/** From this role on, `eventVisibleTo` hides nothing of a project, so its maintained event count is the total. */
const seesEveryEventLevel = Math.max(
  abilityMinimumLevels.readPrivateCode,
  abilityMinimumLevels.readConfidentialIssues,
  abilityMinimumLevels.readInternalNotes,
);

function dayStart(day: string, offsetDays = 0): Date {
  const start = new Date(`${day}T00:00:00.000Z`);
  start.setUTCDate(start.getUTCDate() + offsetDays);
  return start;
}

/** Whose events a list shows. */
type EventScope =
  | { kind: "project"; project: ProjectReference }
  | { kind: "author"; userId: number }
  /** The events of every project the user is a member of (`scope=all`). */
  | { kind: "member"; userId: number };

/**
 * Everything about a list request that changes its statement's text. Each shape is prepared once, so a page costs
 * one statement that PostgreSQL has already parsed and planned; the values travel as parameters.
 */
interface EventPageShape {
  scope: "project-by-id" | "project-by-path" | "author" | "member";
  viewer: Viewer["kind"];
  /** An external user sees fewer projects (`projectVisibleTo`). */
  externalViewer: boolean;
  /** Which filters are present. */
  filters: { action: boolean; targetType: boolean; before: boolean; after: boolean };
  ascending: boolean;
  /**
   * Offset pages carry their total; keyset pages walk from a cursor event: past its (created_at, id) position, or,
   * when retention deleted it or the list could not show it, past its id (ids grow with time).
   */
  page: "offset" | "keyset" | `${"after" | "before"}-${"position" | "id"}`;
  /**
   * The LIMIT: written into the text for the usual page sizes (see `literal`), a parameter for the others, so a client
   * trying every size cannot make every connection hold a hundred variants of each statement.
   */
  rows: number | "parameter";
  /**
   * Offset pages after the first skip rows with an OFFSET parameter. The first page has none: PostgreSQL guesses an
   * OFFSET parameter skips a tenth of the rows, so it would plan a statement with one again on every execution.
   */
  skips: boolean;
}

/** One row per event of the page, or a single row with `id` null for an empty page. */
interface EventPageRow {
  /** A bigint: a string from postgres-js. */
  id: string | number | null;
  json: string | null;
  /** Matching events (offset pages only), as the driver returns a bigint. */
  total: string | number | bigint | null;
  /** Keyset pages from a cursor: whether the cursor is an event of this list that the viewer may see. */
  cursor_found?: boolean;
}

function isProjectScope(shape: EventPageShape): boolean {
  return shape.scope === "project-by-id" || shape.scope === "project-by-path";
}

/** The `project` CTE: the project the reference names, if the viewer may see it, with their access level. */
function namedProject(shape: EventPageShape, viewer: Viewer): SQL {
  const reference =
    shape.scope === "project-by-id"
      ? { by: "id" as const, id: placeholder("projectId") }
      : { by: "path" as const, namespacePath: placeholder("namespacePath"), projectPath: placeholder("projectPath") };
  return sql`select ${projects.id} as id, ${accessLevelIn(viewer)} as access_level
    from ${projects} inner join ${namespaces} on ${namespaces.id} = ${projects.namespaceId}
    where ${and(projectNamed(reference), projectVisibleTo(viewer))}`;
}

/**
 * How many events match, without counting where a maintained count answers: a project's count when the viewer sees
 * every event of it (`seesEveryEventLevel`); for `scope=all`, the maintained counts of the projects where they do plus
 * a real count only in those where their role hides some events. Memberships count only while unexpired, as in
 * `eventVisibleTo`.
 */
function totalOf(shape: EventPageShape, viewer: Viewer, matching: SQL): SQL {
  const counted = countedEvents(matching);
  const unfiltered = !Object.values(shape.filters).some(Boolean);
  if (!unfiltered) return counted;
  if (isProjectScope(shape)) {
    return sql`case when project.access_level >= ${literal(seesEveryEventLevel)}
      then coalesce((select ${projectEventCounts.eventCount} from ${projectEventCounts} where ${projectEventCounts.projectId} = project.id), 0)
      else ${counted} end`;
  }
  if (shape.scope !== "member") return counted;
  const membership = and(eq(projectMembers.userId, placeholder("scopeUserId")), membershipActive(placeholder("today")))!;
  const fullAccess = viewer.kind === "everything" ? sql`true` : sql`${projectMembers.accessLevel} >= ${literal(seesEveryEventLevel)}`;
  const maintained = sql`(select coalesce(sum(${projectEventCounts.eventCount}), 0) from ${projectEventCounts}
    inner join ${projectMembers} on ${projectMembers.projectId} = ${projectEventCounts.projectId} and ${membership}
    where ${fullAccess})`;
  if (viewer.kind === "everything") return maintained;
  const inPartlyVisibleProjects = sql`${events.projectId} in (select ${projectMembers.projectId} from ${projectMembers} where ${membership} and ${projectMembers.accessLevel} < ${literal(seesEveryEventLevel)})`;
  return sql`${maintained} + ${countedEvents(and(inPartlyVisibleProjects, eventVisibleTo(viewer))!)}`;
}

function countedEvents(where: SQL): SQL {
  return sql`(select count(*) from ${events} inner join ${projects} on ${projects.id} = ${events.projectId} where ${where})`;
}

const eventPage = preparedStatements<EventPageShape, EventPageRow>((shape) => {
  const viewer: Viewer =
    shape.viewer === "user"
      ? { kind: "user", id: placeholder("viewerId"), today: placeholder("today"), external: shape.externalViewer }
      : { kind: shape.viewer };
  const isProject = isProjectScope(shape);
  const inScope = isProject
    ? sql`${events.projectId} = project.id`
    : shape.scope === "author"
      ? sql`${events.authorId} = ${placeholder("scopeUserId")}`
      : isMemberOf(placeholder("scopeUserId"), placeholder("today"));
  const listed = and(inScope, eventVisibleTo(viewer))!;
  const matching = and(
    listed,
    shape.filters.action ? sql`${events.action} = ${placeholder("action")}` : undefined,
    shape.filters.targetType ? sql`${events.targetType} = ${placeholder("targetType")}` : undefined,
    shape.filters.before ? lt(events.createdAt, placeholder("before")) : undefined,
    shape.filters.after ? gte(events.createdAt, placeholder("after")) : undefined,
  )!;

  let walk = sql``;
  let cursorFound = sql``;
  if (shape.page !== "offset" && shape.page !== "keyset") {
    const [direction, by] = shape.page.split("-") as ["after" | "before", "position" | "id"];
    const comparison = sql.raw(direction === "after" ? ">" : "<");
    const cursorId = placeholder("cursorId");
    // Only an event this list could show positions the page: for any other id (another project's, one the caller may
    // not see) the subquery finds nothing, exactly as for an event deleted meanwhile, so its time never shows.
    const cursor = (columns: SQL) =>
      sql`(select ${columns} from ${events} inner join ${projects} on ${projects.id} = ${events.projectId} where ${events.id} = ${cursorId} and ${listed})`;
    walk =
      by === "position"
        ? sql` and (${events.createdAt}, ${events.id}) ${comparison} ${cursor(sql`${events.createdAt}, ${events.id}`)}`
        : sql` and ${events.id} ${comparison} ${cursorId}`;
    if (by === "position") cursorFound = sql`, exists ${cursor(sql`1`)} as cursor_found`;
  }
  const direction = sql.raw(shape.ascending ? "asc" : "desc");
  const rows = sql`select ${events.id} as id, ${events.createdAt} as created_at, ${eventJson()} as json
    from ${events}
    inner join ${projects} on ${projects.id} = ${events.projectId}
    inner join ${users} on ${users.id} = ${events.authorId}
    where ${matching}${walk}
    order by ${events.createdAt} ${direction}, ${events.id} ${direction}
    limit ${shape.rows === "parameter" ? placeholder("rows") : literal(shape.rows)}${shape.skips ? sql` offset ${placeholder("offset")}` : sql``}`;
  const total = shape.page === "offset" ? totalOf(shape, viewer, matching) : sql`null::bigint`;
  // The total and the page in one statement: the total is computed once (a lateral subquery of the single scope row),
  // then the page joins it; an empty page still answers one row, so the total is never lost.
  const from = isProject ? sql`project cross join lateral (select ${total} as total) totals` : sql`(select ${total} as total) totals`;
  return sql`${isProject ? sql`with project as (${namedProject(shape, viewer)}) ` : sql``}select totals.total, page.id, page.json${cursorFound}
    from ${from} left join lateral (${rows}) page on true
    order by page.created_at ${direction}, page.id ${direction}`;
});

/** GitLab's default and largest page sizes. */
const usualPageSizes = new Set([20, maxPerPage]);

function shapeAndValues(ctx: Ctx, scope: EventScope, filters: EventFilters, page: EventPage, cursorBy: "position" | "id") {
  const viewer = viewerOf(ctx);
  const perPage = page.kind === "offset" ? page.page.perPage : page.perPage;
  // Keyset pages read one row more, to know whether another page follows.
  const rows = page.kind === "offset" ? perPage : perPage + 1;
  const cursorId = page.kind === "keyset" ? (page.idAfter ?? page.idBefore) : undefined;
  const shape: EventPageShape = {
    scope: scope.kind === "project" ? (scope.project.by === "id" ? "project-by-id" : "project-by-path") : scope.kind,
    viewer: viewer.kind,
    externalViewer: viewer.kind === "user" && viewer.external,
    filters: { action: !!filters.action, targetType: !!filters.targetType, before: !!filters.before, after: !!filters.after },
    ascending: filters.sort === "asc",
    page:
      page.kind === "offset" ? "offset" : cursorId === undefined ? "keyset" : `${page.idAfter !== undefined ? "after" : "before"}-${cursorBy}`,
    rows: usualPageSizes.has(perPage) ? rows : "parameter",
    skips: page.kind === "offset" && page.page.offset > 0,
  };
  const values = {
    projectId: scope.kind === "project" && scope.project.by === "id" ? scope.project.id : null,
    namespacePath: scope.kind === "project" && scope.project.by === "path" ? scope.project.namespacePath : null,
    projectPath: scope.kind === "project" && scope.project.by === "path" ? scope.project.projectPath : null,
    scopeUserId: scope.kind === "project" ? null : scope.userId,
    viewerId: viewer.kind === "user" ? viewer.id : null,
    today: utcDay(ctx.now),
    action: filters.action ?? null,
    targetType: filters.targetType ? eventTargetTypeFilters[filters.targetType] : null,
    before: filters.before ? dayStart(filters.before).toISOString() : null,
    after: filters.after ? dayStart(filters.after, 1).toISOString() : null,
    cursorId: cursorId ?? null,
    offset: page.kind === "offset" ? page.page.offset : null,
    rows,
  };
  return { shape, values };
}

/** A page of events: one prepared statement, and a second only when a keyset cursor names no event of the list. */
async function queryEvents(ctx: Ctx, scope: EventScope, filters: EventFilters, page: EventPage): Promise<EventList> {
  let { shape, values } = shapeAndValues(ctx, scope, filters, page, "position");
  let rows = await eventPage(ctx.db, shape, values);
  if (rows[0]?.cursor_found === false) {
    ({ shape, values } = shapeAndValues(ctx, scope, filters, page, "id"));
    rows = await eventPage(ctx.db, shape, values);
  }
  // Only a project the viewer cannot see answers no row at all.
  if (rows.length === 0) throw new NotFoundError("Project");
  const items = rows.flatMap((row) => (row.id === null ? [] : [{ id: Number(row.id), json: row.json! }]));
  if (page.kind === "keyset") return { items: items.slice(0, page.perPage), total: null, hasMore: items.length > page.perPage };
  const total = Number(rows[0]!.total);
  return { items, total, hasMore: page.page.offset + items.length < total };
}

/** `GET /events`: the caller's own events, or with `scope=all` everything in the projects they are a member of. */
export async function listOwnEvents(ctx: Ctx, scopeAll: boolean, filters: EventFilters, page: EventPage): Promise<EventList> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  return queryEvents(ctx, { kind: scopeAll ? "member" : "author", userId: user.id }, filters, page);
}

/** `GET /users/:id/events`: what a user did, as far as the caller may see. */
export async function listUserEvents(ctx: Ctx, userReference: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const user = await getUserByIdOrUsername(ctx, userReference);
  return queryEvents(ctx, { kind: "author", userId: user.id }, filters, page);
}

/** `GET /projects/:id/events`: 404 for a project the caller cannot see, as everywhere. */
export async function listProjectEvents(ctx: Ctx, projectReference: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const project = parseProjectReference(projectReference);
  if (!project) throw new NotFoundError("Project");
  return queryEvents(ctx, { kind: "project", project }, filters, page);
}
