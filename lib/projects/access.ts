import "server-only";
import { and, eq, gte, inArray, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { literal } from "@/lib/db";
import { accessLevels, projectMembers, projects, projectVisibilities, type ProjectMemberRow } from "@/lib/db/schema";

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

/** The opposite of `membershipActive`: memberships whose last day is over (what the scheduled job removes). */
export function membershipExpired(today: string | Placeholder): SQL {
  return sql`${projectMembers.expiresAt} <= ${today}::date`;
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
    isMemberOf(viewer.id, viewer.today),
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
  return sql<number | null>`(select ${projectMembers.accessLevel} from ${projectMembers} where ${and(
    eq(projectMembers.projectId, projects.id),
    eq(projectMembers.userId, viewer.id),
    membershipActive(viewer.today),
  )})`;
}

/** A user's membership, unexpired on `today`, in the `projects` row of the surrounding query. */
export function isMemberOf(userId: number | Placeholder, today: string | Placeholder): SQL {
  return sql`exists (select 1 from ${projectMembers} where ${and(
    eq(projectMembers.projectId, projects.id),
    eq(projectMembers.userId, userId),
    membershipActive(today),
  )})`;
}

/** `isMemberOf` with at least the role `minimumLevel`. */
export function hasRoleIn(userId: number, today: string, minimumLevel: number): SQL {
  return sql`exists (select 1 from ${projectMembers} where ${and(
    eq(projectMembers.projectId, projects.id),
    eq(projectMembers.userId, userId),
    gte(projectMembers.accessLevel, minimumLevel),
    membershipActive(today),
  )})`;
}
