import "server-only";
import { and, count, gte, lt, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { countLimit, literal, placeholder, preparedStatements } from "@/lib/db";
import {
  authorEventCounts,
  eventActions,
  eventAudiences,
  events,
  issues,
  namespaces,
  projectEventCounts,
  projectMembers,
  projects,
  users,
  type EventAction,
  type NamespaceRow,
} from "@/lib/db/schema";
import { NotFoundError, OffsetLimitExceededError, UnauthorizedError } from "@/lib/errors";
import { maxPerPage, offsetLimit, type PageRequest } from "@/lib/api/pagination";
import { groupVisibleTo } from "@/lib/groups/access";
import { getVisibleGroup, getVisibleGroupByFullPath } from "@/lib/groups/groups";
import {
  accessLevelIn,
  inheritedAccessLevel,
  memberProjectIds,
  memberProjectRoles,
  membershipActive,
  namespacesBelow,
  projectVisibleTo,
  utcDay,
  viewerOf,
  type Viewer,
} from "@/lib/projects/access";
import { abilityMinimumLevels } from "@/lib/projects/policy";
import { missingProject, parseProjectReference, projectNamed, type ProjectReference } from "@/lib/projects/projects";
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
  /**
   * Matching events, for offset pages: exact where maintained counts give it or up to `countLimit`, null past that (and
   * for keyset pages, which never count).
   */
  total: number | null;
  /** Whether another page follows in the requested order. */
  hasMore: boolean;
  /**
   * How far this list's offset pages may reach, in rows (`page * per_page`): GitLab's offset limit, or less where a
   * deep page reads more (`scope=all`, a group's activity). A page past it is refused; the last page before it leads on
   * to keyset pages, which cost the same at any depth.
   */
  offsetReach: number;
}

/**
 * From this role on a reader sees every event of a project; below it, the events of audience `everyone`, pushes where
 * the code is public, and the events about confidential issues they wrote (see `eventAudiences`). The streams below
 * rely on the three abilities sharing one level: a role that could read confidential issues but not internal notes
 * would need streams of its own.
 */
const seesEveryEventLevel = abilityMinimumLevels.readConfidentialIssues;
if (abilityMinimumLevels.readInternalNotes !== seesEveryEventLevel || abilityMinimumLevels.readPrivateCode !== seesEveryEventLevel) {
  throw new Error("event lists assume one level reads private code, confidential issues and internal notes");
}

const audience = {
  everyone: literal(eventAudiences.everyone),
  codeReaders: literal(eventAudiences.codeReaders),
  confidentialIssue: literal(eventAudiences.confidentialIssue),
};

/**
 * How many events of `/events?scope=all` one offset page may have to read, over all the reader's projects: each of
 * their projects gives up to the page's reach, so the offset limit shrinks as their projects grow in number.
 */
const memberScopeRowBudget = 500_000;

/**
 * The same for a group's activity: a deep offset page reads up to its reach from each project and group of the
 * subtree that has events past the page's floor (see `groupHeads`), so its offset limit shrinks as the subtree grows.
 */
const groupScopeRowBudget = 500_000;

/**
 * How many of the instance's newest events `scope=all` walks per row of the page's reach before it reads the reader's
 * projects one by one instead (`memberWalk`): enough for readers whose projects hold one in this many recent events.
 */
const memberWindowRows = 32;

/**
 * The walk is tried only when its window holds no more than this many events per project of the reader: walking an
 * index entry costs a small fraction of a probe into a project's events, so a failed walk adds little to the probes.
 */
const memberWindowRowsPerProject = 4;

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
  | { kind: "member"; userId: number }
  /** The events of a group, its subgroups and every project in them (the group's activity). */
  | { kind: "group"; groupId: number };

/**
 * Everything about a list request that changes its statement's text. Each shape is prepared once, so a page costs
 * one statement that PostgreSQL has already parsed and planned; the values travel as parameters.
 */
interface EventPageShape {
  scope: "project-by-id" | "project-by-path" | "author" | "member" | "group";
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
  /** Matching events (offset pages only), as the driver returns a bigint; null past the count limit. */
  total: string | number | bigint | null;
  /** Keyset pages from a cursor: whether the cursor is an event of this list that the viewer may see. */
  cursor_found?: boolean;
}

function isProjectScope(shape: EventPageShape): boolean {
  return shape.scope === "project-by-id" || shape.scope === "project-by-path";
}

/**
 * One index range of events in the list's order: `where` over `events` (from `from`, `events` by default), or the
 * events about the reader's own confidential issues in a project; `guard`, a condition on the reader alone (their
 * role, the project's visibility), keeps every other reader out of it before any row is read.
 */
type Stream = { guard?: SQL } & ({ where: SQL; leading: SQLWrapper; from?: SQL } | { ownConfidentialIn: SQL });

/**
 * The list as a union of streams, each an index range of events in the list's order (their keys only, so index-only
 * scans serve them) that stops where the page ends; the page is their merge. Every reader gets streams an index
 * serves in order, so a page reads about a page of rows whatever the reader may not see:
 * - in a project, a reader who sees everything reads the project's events; any other reads its audience's partial
 *   index (`events_project_code_readers_idx` where the code is public, `events_project_everyone_idx` where it is not)
 *   and, if signed in, the events about confidential issues they wrote (`events_issue_idx`, through their issues);
 * - for `scope=all`, the instance's newest events against the reader's projects when that walk is exact (`memberWalk`),
 *   else the same per project the reader is a member of, with their role there;
 * - for a group's activity, the same per project of its subtree the reader may see, with their role there, and each
 *   visible group's own events (`events_group_created_id_idx`), read past one probe per source only from the few
 *   sources whose newest events make the page (`groupHeads`);
 * - for one author, their events (`events_author_created_id_idx`), each checked against its project.
 */
class EventStatement {
  readonly viewer: Viewer;
  readonly direction: SQL;
  readonly comparison: SQL;
  readonly fullLevel = literal(seesEveryEventLevel);

  constructor(readonly shape: EventPageShape) {
    this.viewer =
      shape.viewer === "user"
        ? { kind: "user", id: placeholder("viewerId"), today: placeholder("today"), external: shape.externalViewer }
        : { kind: shape.viewer };
    this.direction = sql.raw(shape.ascending ? "asc" : "desc");
    this.comparison = sql.raw(shape.page.startsWith("after") ? ">" : "<");
  }

  /** The filters the request asked for, over `events`. */
  filters(): SQL | undefined {
    const { filters } = this.shape;
    return and(
      filters.action ? sql`${events.action} = ${placeholder("action")}` : undefined,
      filters.targetType ? sql`${events.targetType} = ${placeholder("targetType")}` : undefined,
      filters.before ? lt(events.createdAt, placeholder("before")) : undefined,
      filters.after ? gte(events.createdAt, placeholder("after")) : undefined,
    );
  }

  /** Past the cursor event (keyset pages); the cursor is read once, by the `cursor` CTE. */
  walk(): SQL | undefined {
    const { page } = this.shape;
    if (page === "offset" || page === "keyset") return undefined;
    if (page.endsWith("-id")) return sql`${events.id} ${this.comparison} ${placeholder("cursorId")}`;
    return sql`(${events.createdAt}, ${events.id}) ${this.comparison} (select cursor.created_at, cursor.id from cursor)`;
  }

  /** The events row is about a confidential issue the signed-in reader wrote (a test of one row). */
  ownConfidential(): SQL {
    return sql`${events.audience} = ${audience.confidentialIssue} and exists (select 1 from ${issues}
      where ${issues.id} = ${events.issueId} and ${issues.authorId} = ${placeholder("viewerId")})`;
  }

  /** One stream's keys, in the list's order, no further than `reach` (and, if given, not past `bound`, over `events`). */
  ordered(stream: Stream, reach: SQL, bound?: SQL): SQL {
    const { direction } = this;
    if ("ownConfidentialIn" in stream) {
      // From the reader's confidential issues in the project to each one's events, so the events of every other issue
      // are never read.
      return sql`(select own.created_at, own.id from ${issues} cross join lateral (
          select ${events.createdAt} as created_at, ${events.id} as id from ${events}
          where ${and(sql`${events.issueId} = ${issues.id} and ${events.audience} = ${audience.confidentialIssue}`, this.filters(), this.walk(), bound)}
          order by ${events.createdAt} ${direction}, ${events.id} ${direction} limit ${reach}) own
        where ${and(stream.guard, this.ownIssues(stream.ownConfidentialIn))}
        order by own.created_at ${direction}, own.id ${direction} limit ${reach})`;
    }
    // Ordering by the leading column too, which `where` fixes, makes the index that serves the stream the plan's choice
    // whatever the column's statistics say.
    return sql`(select ${events.createdAt} as created_at, ${events.id} as id from ${stream.from ?? events}
      where ${and(stream.guard, stream.where, this.filters(), this.walk(), bound)}
      order by ${stream.leading} ${direction}, ${events.createdAt} ${direction}, ${events.id} ${direction} limit ${reach})`;
  }

  /** One stream's rows, up to the count limit and one more, unordered: what capped totals count. */
  countable(stream: Stream): SQL {
    if ("ownConfidentialIn" in stream) {
      return sql`(select 1 from ${issues} inner join ${events} on ${events.issueId} = ${issues.id}
        where ${and(stream.guard, this.ownIssues(stream.ownConfidentialIn), sql`${events.audience} = ${audience.confidentialIssue}`, this.filters())}
        limit ${literal(countLimit + 1)})`;
    }
    return sql`(select 1 from ${stream.from ?? events} where ${and(stream.guard, stream.where, this.filters())} limit ${literal(countLimit + 1)})`;
  }

  /** The confidential issues the signed-in reader wrote in a project. */
  ownIssues(projectId: SQL): SQL {
    return sql`${issues.projectId} = ${projectId} and ${issues.authorId} = ${placeholder("viewerId")} and ${issues.confidential}`;
  }

  /** Whether the events row may be shown: the same rules as the streams, row by row, for the keyset cursor. */
  listed(): SQL {
    const { shape } = this;
    if (isProjectScope(shape)) {
      const partial =
        this.viewer.kind === "user" ? sql` or (not project.sees_all and ${this.ownConfidential()})` : sql``;
      return sql`${events.projectId} = project.id and (project.sees_all or ${events.audience} = ${audience.everyone}
        or (${events.audience} = ${audience.codeReaders} and project.public_code)${partial})`;
    }
    if (shape.scope === "member") {
      return sql`exists (select 1 from ${this.memberships()} where ${projectMembers.projectId} = ${events.projectId} and ${this.memberSees()})`;
    }
    if (shape.scope === "group") {
      const partial = this.viewer.kind === "user" ? sql` or (not source.sees_all and ${this.ownConfidential()})` : sql``;
      return sql`exists (select 1 from group_sources source where source.group_id = ${events.groupId}
        or (source.project_id = ${events.projectId} and (source.sees_all or ${events.audience} = ${audience.everyone}
          or (${events.audience} = ${audience.codeReaders} and source.public_code)${partial})))`;
    }
    return sql`exists (select 1 from ${projects} where ${projects.id} = ${events.projectId} and ${this.authorEventVisible()})`;
  }

  /** The reach of each stream: the page and what it skips, plus one row to tell whether another page follows. */
  reach(): SQL {
    const rows = this.rows();
    return this.shape.skips ? sql`(${rows} + ${placeholder("offset")}::integer)` : rows;
  }

  rows(): SQL {
    return this.shape.rows === "parameter" ? sql`${placeholder("rows")}::integer` : literal(this.shape.rows);
  }

  // --- a project's events

  /** The project the reference names, if the viewer may see it, with what they may see of its events. */
  namedProject(): SQL {
    const reference =
      this.shape.scope === "project-by-id"
        ? { by: "id" as const, id: placeholder("projectId") }
        : { by: "path" as const, namespacePath: placeholder("namespacePath"), projectPath: placeholder("projectPath") };
    const seesAll =
      this.viewer.kind === "everything" ? sql`true` : sql`coalesce(${accessLevelIn(this.viewer)}, 0) >= ${this.fullLevel}`;
    return sql`select ${projects.id} as id, ${seesAll} as sees_all, ${projects.visibility} <> 'private' as public_code
      from ${projects} inner join ${namespaces} on ${namespaces.id} = ${projects.namespaceId}
      where ${and(projectNamed(reference), projectVisibleTo(this.viewer))}`;
  }

  /**
   * The project's streams, each read only by the readers it is for: the guard, about the reader alone, is decided once
   * before any row is read.
   */
  projectStreams(): Stream[] {
    const inProject = sql`${events.projectId} = (select id from project)`;
    const guard = (condition: SQL) => sql`(select ${condition} from project)`;
    if (this.viewer.kind === "everything") return [{ where: inProject, leading: events.projectId }];
    const streams: Stream[] = [
      {
        guard: guard(sql`not sees_all and public_code`),
        where: sql`${inProject} and ${events.audience} <= ${audience.codeReaders}`,
        leading: events.projectId,
      },
      {
        guard: guard(sql`not sees_all and not public_code`),
        where: sql`${inProject} and ${events.audience} = ${audience.everyone}`,
        leading: events.projectId,
      },
    ];
    if (this.viewer.kind === "user") {
      streams.unshift({ guard: guard(sql`sees_all`), where: inProject, leading: events.projectId });
      streams.push({ guard: guard(sql`not sees_all`), ownConfidentialIn: sql`(select id from project)` });
    }
    return streams;
  }

  /**
   * The project's total from its maintained counts: every event for those who see all, else the audiences they see,
   * plus, counted, the events about their own confidential issues (null past the count limit).
   */
  projectMaintainedTotal(): SQL {
    const { filters } = this.shape;
    const maintained = sql`(select coalesce(sum(${projectEventCounts.eventCount}), 0) from ${projectEventCounts}
      where ${and(
        sql`${projectEventCounts.projectId} = project.id`,
        sql`(project.sees_all or ${projectEventCounts.audience} = ${audience.everyone}
          or (${projectEventCounts.audience} = ${audience.codeReaders} and project.public_code))`,
        filters.action ? sql`${projectEventCounts.action} = ${placeholder("action")}` : undefined,
        filters.targetType ? sql`${projectEventCounts.targetType} = ${placeholder("targetType")}` : undefined,
      )})`;
    if (this.viewer.kind !== "user") return maintained;
    const own = sql`(select count(*) from ${this.countable({ guard: sql`not project.sees_all`, ownConfidentialIn: sql`project.id` })} own)`;
    return this.maintainedPlusCounted(maintained, own);
  }

  // --- the projects someone is a member of

  /**
   * The reader's projects with their role in each, direct or inherited from groups, the higher of the two, and whether
   * the project's code is public: read once per statement from their own memberships (`memberProjectIds`' sources)
   * into `member_projects`, which every part of the statement reads under the name of `project_members`.
   */
  memberProjects(): SQL {
    // Only a role that does not see every event needs the project's visibility: one probe per such project, never a
    // join that PostgreSQL could answer by hashing the whole projects table.
    return sql`member_projects as materialized (select roles.project_id, roles.access_level,
        roles.access_level >= ${this.fullLevel} or (select ${projects.visibility} <> 'private' from ${projects} where ${projects.id} = roles.project_id) as public_code
      from (select project_id, max(access_level) as access_level
        from (${memberProjectRoles(placeholder("scopeUserId"), placeholder("today"))}) roles group by project_id) roles)`;
  }

  memberships(): SQL {
    return sql`member_projects as ${projectMembers}`;
  }

  /** Whether the member's role in the `project_members` row lets them see the events row (see `listed`). */
  memberSees(row: { audience: SQL; ownConfidential: SQL } = { audience: sql`${events.audience}`, ownConfidential: this.ownConfidential() }): SQL {
    if (this.viewer.kind === "everything") return sql`true`;
    return sql`(${projectMembers.accessLevel} >= ${this.fullLevel} or ${row.audience} = ${audience.everyone}
      or (${row.audience} = ${audience.codeReaders} and project_members.public_code) or ${row.ownConfidential})`;
  }

  /** Per membership, the streams of its project the member's role reads, guarded by their role there. */
  memberStreams(): Stream[] {
    const inProject = sql`${events.projectId} = ${projectMembers.projectId}`;
    if (this.viewer.kind === "everything") return [{ where: inProject, leading: events.projectId }];
    const full = sql`${projectMembers.accessLevel} >= ${this.fullLevel}`;
    return [
      { guard: full, where: inProject, leading: events.projectId },
      {
        guard: sql`not ${full} and project_members.public_code`,
        where: sql`${inProject} and ${events.audience} <= ${audience.codeReaders}`,
        leading: events.projectId,
      },
      {
        guard: sql`not ${full} and not project_members.public_code`,
        where: sql`${inProject} and ${events.audience} = ${audience.everyone}`,
        leading: events.projectId,
      },
      { guard: sql`not ${full}`, ownConfidentialIn: sql`${projectMembers.projectId}` },
    ];
  }

  /** The rows of `perProject` (streams of one membership's project) over all the reader's memberships. */
  overMemberships(perProject: SQL[]): SQL {
    return sql`select streams.* from ${this.memberships()} cross join lateral (${sql.join(perProject, sql` union all `)}) streams`;
  }

  /**
   * The newest events of the whole instance, in the list's order, no more than `memberWindowRows` per row of the page's
   * reach (past the cursor and within the filters; `events_created_id_idx` carries what the test of each needs, so the
   * walk reads no table row), and of those the reach the reader sees (`member_walked`). When they fill the reach, or
   * the window holds every event there is, they are exactly the list's first rows: any event of the list outside the
   * window comes after all of it. Only then does the page take them (`member_walk_exact`); otherwise it reads the
   * member's projects one by one. The walk is tried only for a reader with enough projects that it costs less than
   * the probes it may spare (`memberWindowRowsPerProject` rows per project), and it pays where their projects hold a
   * fair share of recent events, however many projects that is.
   */
  memberWalk(reach: SQL): SQL[] {
    const { direction } = this;
    const window = sql`(${reach} * ${literal(memberWindowRows)})`;
    const ownConfidential = sql`(walk.audience = ${audience.confidentialIssue} and exists (select 1 from ${issues}
      where ${issues.id} = walk.issue_id and ${issues.authorId} = ${placeholder("viewerId")}))`;
    return [
      sql`member_walk_tried as (select count(*) * ${literal(memberWindowRowsPerProject)} >= ${window} as tried from member_projects)`,
      sql`member_window as materialized (select ${events.createdAt} as created_at, ${events.id} as id, ${events.projectId} as project_id,
          ${events.audience} as audience, ${events.issueId} as issue_id from ${events}
        where ${and(sql`(select tried from member_walk_tried)`, this.filters(), this.walk())}
        order by ${events.createdAt} ${direction}, ${events.id} ${direction} limit ${window})`,
      sql`member_walked as materialized (select walk.created_at, walk.id from member_window walk
        inner join ${this.memberships()} on ${projectMembers.projectId} = walk.project_id
        where ${this.memberSees({ audience: sql`walk.audience`, ownConfidential })}
        order by walk.created_at ${direction}, walk.id ${direction} limit ${reach})`,
      sql`member_walk_exact as (select (select tried from member_walk_tried)
        and ((select count(*) from member_walked) >= ${reach} or (select count(*) from member_window) < ${window}) as exact)`,
    ];
  }

  /** The page's keys: the walk's when it is exact, else a page's reach from each of the member's projects. */
  memberPageKeys(ordered: SQL[]): SQL {
    return sql`select walked.created_at, walked.id from member_walked walked where (select exact from member_walk_exact)
      union all (${this.overMemberships(ordered)} where not (select exact from member_walk_exact))`;
  }

  /** The maintained counts of the member's projects, as far as their role there shows them (exact, uncapped). */
  memberMaintainedTotal(): SQL {
    const { filters } = this.shape;
    const sees =
      this.viewer.kind === "everything"
        ? undefined
        : sql`(${projectMembers.accessLevel} >= ${this.fullLevel} or ${projectEventCounts.audience} = ${audience.everyone}
          or (${projectEventCounts.audience} = ${audience.codeReaders} and project_members.public_code))`;
    const maintained = sql`(select coalesce(sum(${projectEventCounts.eventCount}), 0) from ${this.memberships()}
      inner join ${projectEventCounts} on ${projectEventCounts.projectId} = ${projectMembers.projectId}
      where ${
        // An administrator sees every count: with no filter either, nothing is left to test.
        and(
          sees,
          filters.action ? sql`${projectEventCounts.action} = ${placeholder("action")}` : undefined,
          filters.targetType ? sql`${projectEventCounts.targetType} = ${placeholder("targetType")}` : undefined,
        ) ?? sql`true`
      })`;
    if (this.viewer.kind === "everything") return maintained;
    const ownStream = this.memberStreams().at(-1)!;
    const own = sql`(select count(*) from (${this.overMemberships([this.countable(ownStream)])} limit ${literal(countLimit + 1)}) own)`;
    return this.maintainedPlusCounted(maintained, own);
  }

  // --- a group's activity

  /**
   * The namespaces of the group's subtree (the group and every subgroup), an index range of their traversal ids, with
   * the reader's role inherited there (one probe per ancestor, once per namespace rather than per project) and whether
   * they may see the group itself. The group was found visible before the statement runs.
   */
  groupSubtree(): SQL {
    const root = sql`(select scope_root.traversal_ids from ${namespaces} scope_root where scope_root.id = ${placeholder("groupId")})`;
    const { viewer } = this;
    const inherited =
      viewer.kind === "user"
        ? inheritedAccessLevel(viewer.id, viewer.today, sql`${namespaces.id}`)
        : viewer.kind === "everything"
          ? this.fullLevel
          : sql`null::integer`;
    return sql`select ${namespaces.id} as id, ${inherited} as inherited_level, ${groupVisibleTo(viewer)} as visible
      from ${namespaces} where ${namespacesBelow(root)}`;
  }

  /**
   * What the group's activity reads from, one row per source: each project of the subtree the reader may see, with
   * what they may see of its events (the project scope's `sees_all` and `public_code`, their role the higher of their
   * own membership and the one inherited from the groups above), and each group of the subtree they may see, whose
   * own events everyone who sees it sees. Costs one row per project and group of the subtree: a project's role is its
   * namespace's inherited one and, for a signed-in reader, a join with their own project memberships.
   */
  groupSources(): SQL {
    const { viewer } = this;
    const groups = sql`select null::integer as project_id, subtree.id as group_id, false as sees_all, false as public_code
      from group_subtree subtree where subtree.visible`;
    const publicCode = sql`${projects.visibility} <> 'private'`;
    const inSubtree = sql`from group_subtree subtree inner join ${projects} on ${projects.namespaceId} = subtree.id`;
    if (viewer.kind !== "user") {
      const visible = viewer.kind === "anonymous" ? sql`${projects.visibility} = 'public'` : sql`true`;
      return sql`select ${projects.id} as project_id, null::integer as group_id, ${sql.raw(String(viewer.kind === "everything"))} as sees_all,
        ${publicCode} as public_code ${inSubtree} where ${visible} union all ${groups}`;
    }
    const level = sql`greatest(own.access_level, subtree.inherited_level)`;
    const levels = viewer.external ? sql`'public'` : sql`'public', 'internal'`;
    return sql`select ${projects.id} as project_id, null::integer as group_id, coalesce(${level}, 0) >= ${this.fullLevel} as sees_all,
        ${publicCode} as public_code ${inSubtree}
        left join (select ${projectMembers.projectId} as project_id, ${projectMembers.accessLevel} as access_level from ${projectMembers}
          where ${projectMembers.userId} = ${viewer.id} and ${membershipActive(viewer.today)}) own on own.project_id = ${projects.id}
        where ${projects.visibility} in (${levels}) or ${level} is not null
      union all ${groups}`;
  }

  /** Per source (`source`, a row of `group_sources`), the streams of its events the reader sees, guarded as the project's. */
  groupStreams(): Stream[] {
    const inProject = sql`${events.projectId} = source.project_id`;
    const isProject = sql`source.project_id is not null`;
    const groupStream: Stream = { guard: sql`source.group_id is not null`, where: sql`${events.groupId} = source.group_id`, leading: events.groupId };
    const streams: Stream[] = [
      { guard: sql`${isProject} and source.sees_all`, where: inProject, leading: events.projectId },
      {
        guard: sql`${isProject} and not source.sees_all and source.public_code`,
        where: sql`${inProject} and ${events.audience} <= ${audience.codeReaders}`,
        leading: events.projectId,
      },
      {
        guard: sql`${isProject} and not source.sees_all and not source.public_code`,
        where: sql`${inProject} and ${events.audience} = ${audience.everyone}`,
        leading: events.projectId,
      },
    ];
    if (this.viewer.kind === "user") streams.push({ guard: sql`${isProject} and not source.sees_all`, ownConfidentialIn: sql`source.project_id` });
    return [...streams, groupStream];
  }

  /**
   * The rows of `perSource` (streams of one source) over the sources (rows named `source`: `group_sources`, or the
   * `group_heads` that `where` keeps).
   */
  overGroupSources(perSource: SQL[], heads?: { where: SQL }): SQL {
    return sql`select streams.* from ${heads ? sql`group_heads` : sql`group_sources`} source
      cross join lateral (${sql.join(perSource, sql` union all `)}) streams${heads ? sql` where ${heads.where}` : sql``}`;
  }

  /**
   * Each source's newest event in the list's order (its head), and the page's floor: the head at the page's reach
   * among all heads. At least `reach` events (those heads) lie at or before the floor in the list's order, so the page
   * holds no event past it, and no source whose head is past it has anything for the page. The page then reads only
   * the sources whose head is not past the floor, each no further than the floor and the page's reach: with thousands of
   * projects, a page costs one index probe per source and about a page of rows from the few whose newest events make
   * the page, instead of a page's reach from every project. An empty floor (fewer heads than the reach) bounds nothing.
   */
  groupHeads(reach: SQL): SQL[] {
    const { direction } = this;
    const heads = this.groupStreams().map((stream) => this.ordered(stream, literal(1)));
    const [unboundedTime, unboundedId] = this.shape.ascending ? ["infinity", "9223372036854775807"] : ["-infinity", "0"];
    return [
      sql`group_heads as (select source.*, head.created_at as head_created_at, head.id as head_id from group_sources source
        cross join lateral (select heads.created_at, heads.id from (${sql.join(heads, sql` union all `)}) heads
          order by heads.created_at ${direction}, heads.id ${direction} limit 1) head)`,
      sql`group_floor as (select coalesce(floor.created_at, ${sql.raw(`'${unboundedTime}'`)}::timestamptz) as created_at,
          coalesce(floor.id, ${sql.raw(unboundedId)}::bigint) as id
        from (select 1) one left join (select head_created_at as created_at, head_id as id from group_heads
          order by head_created_at ${direction}, head_id ${direction} offset ${reach} - 1 limit 1) floor on true)`,
    ];
  }

  /** Not past the page's floor in the list's order, for `key` (an events row's, or a head's). */
  withinFloor(key: SQL = sql`${events.createdAt}, ${events.id}`): SQL {
    return sql`(${key}) ${sql.raw(this.shape.ascending ? "<=" : ">=")} (select group_floor.created_at, group_floor.id from group_floor)`;
  }

  /**
   * The page's keys from the sources whose head is within the floor, each stream read no further than the floor (an
   * index condition, so a stream stops there) and the page's reach.
   */
  groupPageKeys(reach: SQL): SQL {
    const bounded = this.groupStreams().map((stream) => this.ordered(stream, reach, this.withinFloor()));
    return this.overGroupSources(bounded, { where: this.withinFloor(sql`source.head_created_at, source.head_id`) });
  }

  // --- one author's events

  /** Whether the reader may see the events row of the joined `projects` row, which they must be able to see. */
  authorEventVisible(): SQL {
    const { viewer } = this;
    if (viewer.kind === "everything") return sql`true`;
    const inVisibleProject = projectVisibleTo(viewer);
    if (viewer.kind === "anonymous") return sql`${inVisibleProject} and ${events.audience} <= ${audience.codeReaders}`;
    // The cheap tests first: most events are for everyone, and a role is looked up only for the others.
    return sql`${inVisibleProject} and (${events.audience} = ${audience.everyone}
      or (${events.audience} = ${audience.codeReaders} and ${projects.visibility} <> 'private')
      or coalesce(${accessLevelIn(viewer)}, 0) >= ${this.fullLevel}
      or (${events.audience} = ${audience.confidentialIssue} and exists (select 1 from ${issues}
        where ${issues.id} = ${events.issueId} and ${issues.authorId} = ${placeholder("viewerId")})))`;
  }

  /**
   * The author's total from the maintained counts of the projects they acted in, as far as the reader sees each, plus,
   * counted, the author's events about the reader's own confidential issues where their role shows no others.
   */
  authorMaintainedTotal(): SQL {
    const { filters } = this.shape;
    const { viewer } = this;
    const counts = authorEventCounts;
    const sees =
      viewer.kind === "everything"
        ? undefined
        : viewer.kind === "anonymous"
          ? sql`${projectVisibleTo(viewer)} and ${counts.audience} <= ${audience.codeReaders}`
          : sql`${projectVisibleTo(viewer)} and (${counts.audience} = ${audience.everyone}
            or (${counts.audience} = ${audience.codeReaders} and ${projects.visibility} <> 'private')
            or coalesce(${accessLevelIn(viewer)}, 0) >= ${this.fullLevel})`;
    const maintained = sql`(select coalesce(sum(${counts.eventCount}), 0) from ${counts}
      inner join ${projects} on ${projects.id} = ${counts.projectId}
      where ${and(
        sql`${counts.authorId} = ${placeholder("scopeUserId")}`,
        sees,
        filters.action ? sql`${counts.action} = ${placeholder("action")}` : undefined,
        filters.targetType ? sql`${counts.targetType} = ${placeholder("targetType")}` : undefined,
      )})`;
    if (viewer.kind !== "user") return maintained;
    // Project by project, and only where the reader's role shows no confidential events: a reader who sees them all
    // (the author's Owner, say) must not walk every confidential issue they wrote to count nothing.
    const ownIssueEvents = sql`${projects} cross join lateral (select 1 from ${issues}
      inner join ${events} on ${events.issueId} = ${issues.id}
      where ${and(
        this.ownIssues(sql`${projects.id}`),
        sql`${events.authorId} = ${placeholder("scopeUserId")} and ${events.audience} = ${audience.confidentialIssue}`,
        this.filters(),
      )} limit ${literal(countLimit + 1)}) own_events`;
    const own = sql`(select count(*) from (select 1 from ${ownIssueEvents} where ${and(
      sql`${projects.id} in (select ${issues.projectId} from ${issues} where ${issues.authorId} = ${placeholder("viewerId")} and ${issues.confidential})`,
      projectVisibleTo(viewer),
      sql`coalesce(${accessLevelIn(viewer)}, 0) < ${this.fullLevel}`,
    )} limit ${literal(countLimit + 1)}) own)`;
    return this.maintainedPlusCounted(maintained, own);
  }

  authorStream(): Stream {
    return {
      from: sql`${events} inner join ${projects} on ${projects.id} = ${events.projectId}`,
      where: sql`${events.authorId} = ${placeholder("scopeUserId")} and ${this.authorEventVisible()}`,
      leading: events.authorId,
    };
  }

  /**
   * A maintained total plus a counted one: null when the counted part passed the count limit. Each part is computed
   * once (OFFSET 0 keeps the planner from copying a subquery into every place that names it).
   */
  maintainedPlusCounted(maintained: SQL, counted: SQL): SQL {
    return sql`(select case when own.n > ${literal(countLimit)} then null else maintained.n + own.n end
      from (select ${maintained} as n offset 0) maintained, (select ${counted} as n offset 0) own)`;
  }

  // --- the statement

  cappedTotal(countables: SQL[]): SQL {
    return sql`(select case when count(*) > ${literal(countLimit)} then null else count(*) end
      from (${sql.join(countables, sql` union all `)}) matching)`;
  }

  /** The page's total: maintained counts where they answer (no date filter), else counted up to the limit. */
  total(): SQL {
    const { shape } = this;
    if (shape.page !== "offset") return sql`null::bigint`;
    const dated = shape.filters.before || shape.filters.after;
    if (isProjectScope(shape)) {
      if (!dated) return this.projectMaintainedTotal();
      return this.cappedTotal(this.projectStreams().map((stream) => this.countable(stream)));
    }
    if (shape.scope === "member") {
      if (!dated) return this.memberMaintainedTotal();
      const rows = this.overMemberships(this.memberStreams().map((stream) => this.countable(stream)));
      return this.cappedTotal([sql`(${rows} limit ${literal(countLimit + 1)})`]);
    }
    if (shape.scope === "group") {
      // Counted, up to the count limit: summing the maintained counts would read every project's, however many.
      const rows = this.overGroupSources(this.groupStreams().map((stream) => this.countable(stream)));
      return this.cappedTotal([sql`(${rows} limit ${literal(countLimit + 1)})`]);
    }
    if (!dated) return this.authorMaintainedTotal();
    return this.cappedTotal([this.countable(this.authorStream())]);
  }

  /** The keys of the page's events, in order. */
  pageKeys(): SQL {
    const { shape } = this;
    const reach = this.reach();
    const ordered = (streams: Stream[]) => streams.map((stream) => this.ordered(stream, reach));
    let merged: SQL;
    if (isProjectScope(shape)) merged = sql.join(ordered(this.projectStreams()), sql` union all `);
    else if (shape.scope === "member") merged = this.memberPageKeys(ordered(this.memberStreams()));
    else if (shape.scope === "group") merged = this.groupPageKeys(reach);
    else merged = sql.join(ordered([this.authorStream()]), sql``);
    return sql`select keys.created_at, keys.id from (${merged}) keys
      order by keys.created_at ${this.direction}, keys.id ${this.direction}
      limit ${this.rows()}${shape.skips ? sql` offset ${placeholder("offset")}` : sql``}`;
  }

  build(): SQL {
    const { shape } = this;
    const ctes: SQL[] = [];
    if (isProjectScope(shape)) ctes.push(sql`project as (${this.namedProject()})`);
    if (shape.scope === "member") ctes.push(this.memberProjects());
    if (shape.scope === "group") ctes.push(sql`group_subtree as materialized (${this.groupSubtree()})`, sql`group_sources as materialized (${this.groupSources()})`);
    let cursorFound = sql``;
    if (shape.page.endsWith("-position")) {
      // Only an event this list could show positions the page: for any other id (another project's, one the caller may
      // not see) the cursor is empty, exactly as for an event deleted meanwhile, so its time never shows.
      ctes.push(sql`cursor as (select ${events.createdAt} as created_at, ${events.id} as id
        from ${events}${isProjectScope(shape) ? sql`, project` : sql``}
        where ${events.id} = ${placeholder("cursorId")} and ${this.listed()})`);
      cursorFound = sql`, exists (select 1 from cursor) as cursor_found`;
    }
    if (shape.scope === "group") ctes.push(...this.groupHeads(this.reach()));
    if (shape.scope === "member") ctes.push(...this.memberWalk(this.reach()));
    const page = sql`select ${events.id} as id, ${events.createdAt} as created_at, ${eventJson()} as json
      from (${this.pageKeys()}) keys
      inner join ${events} on ${events.id} = keys.id
      inner join ${users} on ${users.id} = ${events.authorId}`;
    // The total and the page in one statement: the total is computed once (a lateral subquery of the single scope row,
    // which OFFSET 0 keeps the planner from folding into every row of the page), then the page joins it; an empty page
    // still answers one row, so the total is never lost. A project the viewer cannot see answers no row at all.
    const from = isProjectScope(shape)
      ? sql`project cross join lateral (select ${this.total()} as total offset 0) totals`
      : sql`(select ${this.total()} as total offset 0) totals`;
    return sql`${ctes.length > 0 ? sql`with ${sql.join(ctes, sql`, `)} ` : sql``}select totals.total, page.id, page.json${cursorFound}
      from ${from} left join lateral (${page}) page on true
      order by page.created_at ${this.direction}, page.id ${this.direction}`;
  }
}

const eventPage = preparedStatements<EventPageShape, EventPageRow>((shape) => new EventStatement(shape).build());

/** GitLab's default and largest page sizes. */
const usualPageSizes = new Set([20, maxPerPage]);

function shapeAndValues(ctx: Ctx, scope: EventScope, filters: EventFilters, page: EventPage, cursorBy: "position" | "id") {
  const viewer = viewerOf(ctx);
  const perPage = page.kind === "offset" ? page.page.perPage : page.perPage;
  // Every page reads one row more, to know whether another page follows.
  const rows = perPage + 1;
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
    scopeUserId: "userId" in scope ? scope.userId : null,
    groupId: scope.kind === "group" ? scope.groupId : null,
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
  if (rows.length === 0) throw new NotFoundError("Project");
  const perPage = page.kind === "offset" ? page.page.perPage : page.perPage;
  const found = rows.flatMap((row) => (row.id === null ? [] : [{ id: Number(row.id), json: row.json! }]));
  const hasMore = found.length > perPage;
  const items = hasMore ? found.slice(0, perPage) : found;
  if (page.kind === "keyset") return { items, total: null, hasMore, offsetReach: offsetLimit };
  const counted = rows[0]!.total;
  return { items, total: counted === null ? null : Number(counted), hasMore, offsetReach: offsetLimit };
}

/**
 * Offset pages of a list that may reach only `reach()` rows: a page past it is refused as GitLab refuses deep offsets,
 * pointing at keyset pages. The reach is worked out only when it matters: for a page past the first, or for one that
 * has a next page (whose link leads on to keyset pages if the next offset page would be refused).
 */
async function withinOffsetReach(page: EventPage, reach: () => Promise<number>, list: () => Promise<EventList>): Promise<EventList> {
  if (page.kind !== "offset") return list();
  let limit: number | undefined;
  if (page.page.offset > 0) {
    limit = await reach();
    if (page.page.page * page.page.perPage > limit) throw new OffsetLimitExceededError(limit, "Event");
  }
  const found = await list();
  return found.hasMore ? { ...found, offsetReach: limit ?? (await reach()) } : found;
}

/**
 * How far `scope=all` offset pages may reach: they read up to a page's reach from each of the reader's projects, so
 * the deeper the page and the more projects, the more rows; the reach keeps that under `memberScopeRowBudget`.
 */
async function memberScopeReach(ctx: Ctx, userId: number): Promise<number> {
  const [row] = await ctx.db
    .select({ projects: count() })
    .from(sql`(${memberProjectIds(userId, utcDay(ctx.now))}) as member_projects`);
  return Math.min(offsetLimit, Math.floor(memberScopeRowBudget / Math.max(1, row?.projects ?? 0)));
}

/** `GET /events`: the caller's own events, or with `scope=all` everything in the projects they are a member of. */
export async function listOwnEvents(ctx: Ctx, scopeAll: boolean, filters: EventFilters, page: EventPage): Promise<EventList> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (!scopeAll) return queryEvents(ctx, { kind: "author", userId: user.id }, filters, page);
  return withinOffsetReach(
    page,
    () => memberScopeReach(ctx, user.id),
    () => queryEvents(ctx, { kind: "member", userId: user.id }, filters, page),
  );
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
  try {
    return await queryEvents(ctx, { kind: "project", project }, filters, page);
  } catch (error) {
    // A path the project had before a rename: the statement finds projects by the path they have now.
    if (error instanceof NotFoundError && project.by === "path") throw await missingProject(ctx, project);
    throw error;
  }
}

/**
 * How far a group's offset pages may reach. They cost one probe per project and group of the subtree, then up to a
 * page's reach from each source whose newest events reach the page, of which there are no more than the reach nor
 * than the subtree's sources: a deep offset page may read its reach times the subtree's sources. The reach keeps that
 * under `groupScopeRowBudget`, as `memberScopeReach` does for `scope=all`.
 */
async function groupScopeReach(ctx: Ctx, group: NamespaceRow): Promise<number> {
  const root = sql`(select scope_root.traversal_ids from ${namespaces} scope_root where scope_root.id = ${group.id})`;
  const subtree = sql`(select ${namespaces.id} from ${namespaces} where ${namespacesBelow(root)})`;
  const [row] = await ctx.db
    .select({ sources: sql<number>`(select count(*) from ${subtree} subtree) + (select count(*) from ${projects} where ${projects.namespaceId} in ${subtree})`.mapWith(Number) })
    .from(sql`(select 1) one`);
  return Math.min(offsetLimit, Math.floor(groupScopeRowBudget / Math.max(1, row?.sources ?? 0)));
}

/**
 * A group's activity: the events of every project in the group and its subgroups that the reader may see, each shown
 * as on that project's own activity, and the group-level events (created, joined, left, expired) of every group of the
 * subtree they may see. 404 for a group the reader may not see, as `getVisibleGroup`.
 */
export async function listGroupEvents(ctx: Ctx, groupReference: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const { group } = await getVisibleGroup(ctx, groupReference);
  return listEventsOfGroup(ctx, group, filters, page);
}

/** `listGroupEvents` for the group at a full path (its activity page's), never read as an id. */
export async function listGroupEventsAt(ctx: Ctx, fullPath: string, filters: EventFilters, page: EventPage): Promise<EventList> {
  const { group } = await getVisibleGroupByFullPath(ctx, fullPath);
  return listEventsOfGroup(ctx, group, filters, page);
}

/** `listGroupEvents` for a group already found visible to the reader. */
export async function listEventsOfGroup(ctx: Ctx, group: NamespaceRow, filters: EventFilters, page: EventPage): Promise<EventList> {
  return withinOffsetReach(
    page,
    () => groupScopeReach(ctx, group),
    () => queryEvents(ctx, { kind: "group", groupId: group.id }, filters, page),
  );
}
