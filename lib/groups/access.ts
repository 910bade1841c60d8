import "server-only";
import { eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import { literal } from "@/lib/db";
import { accessLevels, groupMembers, namespaces, projectMembers, projects } from "@/lib/db/schema";
import { amongIds, groupMembershipActive, inheritedAccessLevel, memberGroupIdArray, membershipActive, outerNamespace, type Viewer } from "@/lib/projects/access";

/**
 * Which groups a viewer may see, as predicates on `namespaces` (of kind `group`), in the shape of the project rules
 * (lib/projects/access.ts): public groups to everybody, internal ones to signed-in users who are not external, private
 * ones to those with a membership in force at or above them (inherited), in a group below them, or in a project below
 * them, as GitLab's `read_group` has it.
 */

/**
 * The groups a user belongs to, at or below each group membership in force with at least `minimumLevel`: the
 * namespaces whose ancestry holds one of their groups, read from `namespaces_traversal_ids_gin`.
 */
export function memberGroupIds(userId: number | Placeholder, today: string | Placeholder, minimumLevel?: number): SQL {
  return sql`select member_namespace.id from ${namespaces} member_namespace
    where member_namespace.traversal_ids && ${memberGroupIdArray(userId, today, minimumLevel)}`;
}

/** The groups where a user's own membership (not one inherited from above) is in force at `level` or higher. */
export function directMemberGroupIds(userId: number | Placeholder, today: string | Placeholder, level: number): SQL {
  return sql`select ${groupMembers.groupId} from ${groupMembers}
    where ${groupMembers.userId} = ${userId} and ${groupMembershipActive(today)} and ${groupMembers.accessLevel} >= ${literal(level)}`;
}

/**
 * The groups a user sees because something below them is theirs: the ancestors of their group memberships and of the
 * namespaces of their project memberships (user namespaces among them, which group lists leave out by kind).
 */
function ancestorsOfMemberships(userId: number | Placeholder, today: string | Placeholder): SQL {
  return sql`select unnest(member_group.traversal_ids) from ${groupMembers}
      inner join ${namespaces} member_group on member_group.id = ${groupMembers.groupId}
      where ${groupMembers.userId} = ${userId} and ${groupMembershipActive(today)}
    union all
    select unnest(project_namespace.traversal_ids) from ${projectMembers}
      inner join ${projects} on ${projects.id} = ${projectMembers.projectId}
      inner join ${namespaces} project_namespace on project_namespace.id = ${projects.namespaceId}
      where ${projectMembers.userId} = ${userId} and ${membershipActive(today)}`;
}

/** Private groups a user may see, as a set of ids driven by their memberships. */
function privateGroupsOf(userId: number | Placeholder, today: string | Placeholder): SQL {
  return amongIds(namespaces.id, sql`${memberGroupIds(userId, today)} union all ${ancestorsOfMemberships(userId, today)}`);
}

/** Whether the viewer may see the `namespaces` row (a group) of the surrounding query. */
export function groupVisibleTo(viewer: Viewer): SQL {
  if (viewer.kind === "everything") return sql`true`;
  if (viewer.kind === "anonymous") return eq(namespaces.visibility, "public");
  const levels = viewer.external ? sql`'public'` : sql`'public', 'internal'`;
  // A role inherited from above is a membership at or above the group: `privateGroupsOf` holds it.
  return sql`(${namespaces.visibility} in (${levels}) or ${privateGroupsOf(viewer.id, viewer.today)})`;
}

/**
 * `groupVisibleTo` as parts that do not overlap, one per visibility level, each read in a list's order from the
 * `namespaces_group_visibility_*` indexes; the members-only part is driven by the viewer's memberships.
 */
export function groupVisibilityParts(viewer: Viewer): SQL[] {
  const levels = ["public", "internal", "private"] as const;
  if (viewer.kind === "everything") return levels.map((level) => eq(namespaces.visibility, level));
  if (viewer.kind === "anonymous") return [eq(namespaces.visibility, "public")];
  const membersOnly = viewer.external ? sql`${namespaces.visibility} in ('internal', 'private')` : sql`${namespaces.visibility} = 'private'`;
  return [
    eq(namespaces.visibility, "public"),
    ...(viewer.external ? [] : [eq(namespaces.visibility, "internal")]),
    sql`${membersOnly} and ${privateGroupsOf(viewer.id, viewer.today)}`,
  ];
}

/** The viewer's role in the `namespaces` row (a group) of the surrounding query, inherited from above; admins are Owners. */
export function groupAccessLevelIn(viewer: Viewer): SQL<number | null> {
  if (viewer.kind === "anonymous") return sql<null>`null::integer`;
  if (viewer.kind === "everything") return sql<number>`${literal(accessLevels.owner)}::integer`;
  return inheritedAccessLevel(viewer.id, viewer.today, outerNamespace.id);
}

