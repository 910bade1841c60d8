import "server-only";
import { and, eq, inArray, or, sql, type AnyColumn, type Placeholder, type SQL } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { literal } from "@/lib/db";
import { accessLevels, groupMembers, namespaces, projectMembers, projects, projectVisibilities, type ProjectMemberRow } from "@/lib/db/schema";

export { accessLevelNames, isAccessLevel } from "./roles";

/**
 * Who is looking, as far as the visibility rules care: someone who sees everything (an admin or the system), nobody
 * signed in, or a user on a given day (memberships end with the day they expire), external or not. In a statement
 * prepared for every user of a kind, the user's id and the day are placeholders; whether they are external changes
 * the statement, so it is a plain value.
 */
export type Viewer =
  | { kind: "everything" }
  | { kind: "anonymous" }
  | { kind: "user"; id: number | Placeholder; today: string | Placeholder; external: boolean };

export function viewerOf(ctx: Pick<Ctx, "actor" | "now">): Viewer {
  const { actor } = ctx;
  if (actor.kind === "system" || (actor.kind === "user" && actor.user.isAdmin)) return { kind: "everything" };
  if (actor.kind === "anonymous") return { kind: "anonymous" };
  return { kind: "user", id: actor.user.id, today: utcDay(ctx.now), external: actor.user.external };
}

/** The UTC calendar day of an instant (`YYYY-MM-DD`), which membership expiry dates are compared with. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Whether the `project_members` row of the surrounding query still grants its role on `today`. A membership ends at
 * the start of its `expires_at` day (UTC), as GitLab's `Member.not_expired` has it (`expires_at > today`); the
 * scheduled job removes it later. Every check of a member's role goes through this (or `isMembershipActive`).
 */
export function membershipActive(today: string | Placeholder): SQL {
  return sql`(${projectMembers.expiresAt} is null or ${projectMembers.expiresAt} > ${today}::date)`;
}

/**
 * The `namespaces` row of the surrounding query, named in full: a query that reads one table renders its selected
 * columns unqualified, and inside a subquery over `namespaces` an unqualified column would name the subquery's row.
 */
export const outerNamespace = { id: sql.raw(`"namespaces"."id"`), traversalIds: sql.raw(`"namespaces"."traversal_ids"`) };

/** `membershipActive` for the `group_members` row of the surrounding query. */
export function groupMembershipActive(today: string | Placeholder): SQL {
  return sql`(${groupMembers.expiresAt} is null or ${groupMembers.expiresAt} > ${today}::date)`;
}

/**
 * The namespaces at or below the one whose `traversal_ids` are `ancestor`, as a condition on `namespaces`: an index
 * range of `namespaces_traversal_ids_idx`, since arrays compare element by element and every descendant's array
 * starts with its ancestor's (`{4,7}` <= `{4,7,9}` < `{4,8}`).
 */
export function namespacesBelow(ancestor: SQL): SQL {
  return sql`(${namespaces.traversalIds} >= ${ancestor} and ${namespaces.traversalIds} < (${ancestor})[1:cardinality(${ancestor}) - 1] || ((${ancestor})[cardinality(${ancestor})] + 1))`;
}

/**
 * The projects where a user has a membership in force, direct or inherited from a group at or above the project's
 * namespace, with at least `minimumLevel`: a set of ids read from the user's own memberships (their project
 * memberships, and the namespaces at or below their groups, then the projects in them), so it costs what the user
 * belongs to, never what the instance holds.
 */
export function memberProjectIds(userId: number | Placeholder, today: string | Placeholder, minimumLevel?: number): SQL {
  return sql`select roles.project_id from (${memberProjectRoles(userId, today, minimumLevel)}) roles`;
}

/**
 * `memberProjectIds` with the role of each membership: rows of `project_id` and `access_level`, a project once per
 * project membership and once for its groups (with the highest role they give). The namespaces at or below the user's
 * groups come from `namespaces_traversal_ids_gin`, each with one probe of the user's memberships for its role, and the
 * projects of each in a fenced lateral (`offset 0`), one index probe per namespace: however many rows PostgreSQL
 * expects, it can never hash the whole `projects` table or compare every namespace with every membership.
 */
export function memberProjectRoles(userId: number | Placeholder, today: string | Placeholder, minimumLevel?: number): SQL {
  const atLeast = minimumLevel === undefined ? sql`true` : sql`${projectMembers.accessLevel} >= ${literal(minimumLevel)}`;
  return sql`select ${projectMembers.projectId} as project_id, ${projectMembers.accessLevel} as access_level from ${projectMembers}
    where ${projectMembers.userId} = ${userId} and ${membershipActive(today)} and ${atLeast}
    union all
    select below_project.id, below.access_level
    from (select below_namespace.id, ${inheritedAccessLevel(userId, today, sql`below_namespace.id`)} as access_level
      from ${namespaces} below_namespace where below_namespace.traversal_ids && ${memberGroupIdArray(userId, today, minimumLevel)} offset 0) below
    cross join lateral (select ${projects.id} from ${projects} where ${projects.namespaceId} = below.id offset 0) below_project`;
}

/**
 * The ids of the groups where a user's own membership is in force (with at least `minimumLevel`), as one array the
 * statement computes once. `traversal_ids && <this array>` then says "at or below one of the user's groups" of any
 * namespace: checked on a row already read, or read from `namespaces_traversal_ids_gin`, and estimated from the array
 * statistics. (An index range per membership is as cheap to read, but PostgreSQL expects a tenth of all namespaces
 * from each, and then hashes whole tables or gives up hashing a set it thinks too big and scans it for every row.)
 */
export function memberGroupIdArray(userId: number | Placeholder, today: string | Placeholder, minimumLevel?: number): SQL {
  const atLeast = minimumLevel === undefined ? sql`true` : sql`${groupMembers.accessLevel} >= ${literal(minimumLevel)}`;
  return sql`(select coalesce(array_agg(${groupMembers.groupId}), '{}'::integer[]) from ${groupMembers}
    where ${groupMembers.userId} = ${userId} and ${groupMembershipActive(today)} and ${atLeast})`;
}

/**
 * A user's role inherited from the groups at and above the namespace `namespaceId` names (null: none): one probe of
 * `group_members` per ancestor, through the namespace's own `traversal_ids`.
 */
export function inheritedAccessLevel(userId: SQL | number | Placeholder, today: string | Placeholder, namespaceId: SQL): SQL<number | null> {
  // Aliased, so the namespace and memberships of a surrounding query stay within reach of `namespaceId`.
  return sql<number | null>`(select max(inherited.access_level) from ${namespaces} placed
    inner join ${groupMembers} inherited on inherited.group_id = any(placed.traversal_ids)
    where placed.id = ${namespaceId} and inherited.user_id = ${userId}
      and (inherited.expires_at is null or inherited.expires_at > ${today}::date))`;
}

/**
 * A user's role in a project (null: none): the higher of their own membership and what they inherit from the groups
 * above the project's namespace, each only while in force. The user, the project and its namespace are SQL, so this
 * serves a project row of the surrounding query as well as a user row against a project already read.
 */
export function projectRoleOf(userId: SQL | number | Placeholder, projectId: SQL | number, namespaceId: SQL | number, today: string | Placeholder): SQL<number | null> {
  const direct = sql`(select own.access_level from ${projectMembers} own
    where own.project_id = ${projectId} and own.user_id = ${userId} and (own.expires_at is null or own.expires_at > ${today}::date))`;
  return sql<number | null>`greatest(${direct}, ${inheritedAccessLevel(userId, today, sql`${namespaceId}`)})`;
}

/** A user's role in the `projects` row of the surrounding query (null: none), direct or inherited. */
export function projectAccessLevel(userId: number | Placeholder, today: string | Placeholder): SQL<number | null> {
  return projectRoleOf(userId, sql`${projects.id}`, sql`${projects.namespaceId}`, today);
}

/**
 * Whether `column` is one of the ids a subquery reads from someone's memberships, as an array the statement reads once
 * (`= any(array(…))`). PostgreSQL then reads the rows by those ids and sorts them, at the cost of the memberships,
 * where `in (…)` lets it walk a list's index in order and test each row against the set, which costs the whole table
 * when the memberships hold few of its rows.
 */
export function amongIds(column: SQL | AnyColumn, ids: SQL): SQL {
  return sql`${column} = any(array(${ids}))`;
}

/** The opposite of `membershipActive`: memberships whose last day is over (what the scheduled job removes). */
export function membershipExpired(today: string | Placeholder): SQL {
  return sql`${projectMembers.expiresAt} <= ${today}::date`;
}

/** `membershipExpired` for the `group_members` row of the surrounding query. */
export function groupMembershipExpired(today: string | Placeholder): SQL {
  return sql`${groupMembers.expiresAt} <= ${today}::date`;
}

/** `membershipActive` for a row already read. */
export function isMembershipActive(member: Pick<ProjectMemberRow, "expiresAt">, now: Date): boolean {
  return member.expiresAt === null || member.expiresAt > utcDay(now);
}

/**
 * Which projects a viewer may see, as a SQL predicate on `projects` (applied before paging so counts are exact):
 * public ones to everybody, internal ones to any signed-in user who is not external, private ones (and, for external
 * users, internal ones) to members; admins see all. External users are GitLab's: people from outside the
 * organization, who see only public projects and those they were made members of.
 */
export function projectVisibleTo(viewer: Viewer): SQL {
  if (viewer.kind === "everything") return sql`true`;
  if (viewer.kind === "anonymous") return eq(projects.visibility, "public");
  return or(
    eq(projects.visibility, "public"),
    viewer.external ? undefined : eq(projects.visibility, "internal"),
    sql`${projectAccessLevel(viewer.id, viewer.today)} is not null`,
  )!;
}

/**
 * `projectVisibleTo` as parts that do not overlap, one per visibility level the viewer may see something of, so a list
 * can read each part in its order from an index that starts with the visibility and merge them (an OR across the
 * levels would make PostgreSQL read and sort every visible project). Private projects, and an external user's internal
 * ones, are those the viewer is a member of: a part driven by the viewer's memberships.
 */
export function visibilityParts(viewer: Viewer): SQL[] {
  if (viewer.kind === "everything") return projectVisibilities.map((visibility) => eq(projects.visibility, visibility));
  if (viewer.kind === "anonymous") return [eq(projects.visibility, "public")];
  const membersOnly = viewer.external ? inArray(projects.visibility, ["internal", "private"]) : eq(projects.visibility, "private");
  return [
    eq(projects.visibility, "public"),
    ...(viewer.external ? [] : [eq(projects.visibility, "internal")]),
    and(membersOnly, isMemberOf(viewer.id, viewer.today))!,
  ];
}

/** The viewer's access level in the `projects` row of the surrounding query (null: none); admins count as Owner. */
export function accessLevelIn(viewer: Viewer): SQL<number | null> {
  if (viewer.kind === "anonymous") return sql<null>`null::integer`;
  if (viewer.kind === "everything") return sql<number>`${literal(accessLevels.owner)}::integer`;
  return projectAccessLevel(viewer.id, viewer.today);
}

/**
 * A user's membership, direct or inherited, unexpired on `today`, in the `projects` row of the surrounding query, as
 * a set of ids from their memberships (`memberProjectIds`): what lists of "my projects" and the private part of a list
 * are driven by.
 */
export function isMemberOf(userId: number | Placeholder, today: string | Placeholder): SQL {
  return amongIds(projects.id, memberProjectIds(userId, today));
}

/** `isMemberOf` with at least the role `minimumLevel`, direct or inherited. */
export function hasRoleIn(userId: number, today: string, minimumLevel: number): SQL {
  return amongIds(projects.id, memberProjectIds(userId, today, minimumLevel));
}
