import "server-only";
import { and, eq, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Actor } from "@/lib/context";
import { literal } from "@/lib/db";
import { accessLevels, projectMembers, projects } from "@/lib/db/schema";

export { accessLevelNames, isAccessLevel } from "./roles";

/**
 * Who is looking, as far as the visibility rules care: someone who sees everything (an admin or the system), nobody
 * signed in, or a user. In a statement prepared for every user of a kind, the user's id is a placeholder.
 */
export type Viewer = { kind: "everything" } | { kind: "anonymous" } | { kind: "user"; id: number | Placeholder };

export function viewerOf(actor: Actor): Viewer {
  if (actor.kind === "system" || (actor.kind === "user" && actor.user.isAdmin)) return { kind: "everything" };
  if (actor.kind === "anonymous") return { kind: "anonymous" };
  return { kind: "user", id: actor.user.id };
}

/**
 * Which projects a viewer may see, as a SQL predicate on `projects` (applied before paging so counts are exact):
 * public ones to everybody, internal ones to any signed-in user, private ones to members; admins see all.
 */
export function projectVisibleTo(viewer: Viewer): SQL {
  if (viewer.kind === "everything") return sql`true`;
  if (viewer.kind === "anonymous") return eq(projects.visibility, "public");
  return or(
    eq(projects.visibility, "public"),
    eq(projects.visibility, "internal"),
    isMemberOf(viewer.id),
  )!;
}

/** The viewer's access level in the `projects` row of the surrounding query (null: none); admins count as Owner. */
export function accessLevelIn(viewer: Viewer): SQL<number | null> {
  if (viewer.kind === "anonymous") return sql<null>`null::integer`;
  if (viewer.kind === "everything") return sql<number>`${literal(accessLevels.owner)}::integer`;
  return sql<number | null>`(select ${projectMembers.accessLevel} from ${projectMembers} where ${projectMembers.projectId} = ${projects.id} and ${projectMembers.userId} = ${viewer.id})`;
}

/** Membership of a given user in the `projects` row of the surrounding query. */
export function isMemberOf(userId: number | Placeholder): SQL {
  return sql`exists (select 1 from ${projectMembers} where ${and(
    eq(projectMembers.projectId, projects.id),
    eq(projectMembers.userId, userId),
  )})`;
}
