import "server-only";
import { and, eq, or, sql, type SQL } from "drizzle-orm";
import type { Actor } from "@/lib/context";
import { projectMembers, projects } from "@/lib/db/schema";

export { accessLevelNames, isAccessLevel } from "./roles";

/**
 * Which projects an actor may see, as a SQL predicate on `projects` (applied before paging so counts are exact):
 * public ones to everybody, internal ones to any signed-in user, private ones to members; admins see all.
 */
export function projectVisibleTo(actor: Actor): SQL {
  if (actor.kind === "system" || (actor.kind === "user" && actor.user.isAdmin)) return sql`true`;
  if (actor.kind === "anonymous") return eq(projects.visibility, "public");
  return or(
    eq(projects.visibility, "public"),
    eq(projects.visibility, "internal"),
    sql`exists (select 1 from ${projectMembers} where ${projectMembers.projectId} = ${projects.id} and ${projectMembers.userId} = ${actor.user.id})`,
  )!;
}

/** Membership of a given user in the `projects` row of the surrounding query. */
export function isMemberOf(userId: number): SQL {
  return sql`exists (select 1 from ${projectMembers} where ${and(
    eq(projectMembers.projectId, projects.id),
    eq(projectMembers.userId, userId),
  )})`;
}
