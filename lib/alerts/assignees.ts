import "server-only";
import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { alertAssignees, alerts, users } from "@/lib/db/schema";
import { BadRequestError } from "@/lib/errors";
import { projectRoleOf, utcDay } from "@/lib/projects/access";
import { abilityMinimumLevels } from "@/lib/projects/policy";
import type { ProjectView } from "@/lib/projects/projects";
import { assigneesByOwner } from "@/lib/users/assignees";
import type { UserSummary } from "@/lib/users/serialize";

/** Whom a request assigns, as GitLab's `alertSetAssignees` names them: by id or by username, in the order given. */
export type AssigneeReference = { id: number } | { username: string };

const summaryColumns = { id: users.id, username: users.username, name: users.name, state: users.state };

/** GitLab's refusal of an assignee who may not read the alert (`AlertManagement::Alerts::UpdateService`). */
export const assigneeRefused = "Assignee has no permissions";

// Ids beyond the integer column name nobody; comparing them would fail the statement instead.
const storableId = (id: number) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647;

/**
 * The assignees a request leaves on an alert. GitLab's alerts have one assignee at most: its update service keeps the
 * first one named ("multiple are not currently supported") and refuses it unless they may read the project's alerts,
 * so a non-member, a Guest, a blocked account or a name nobody has is refused, never silently dropped. Nobody named
 * unassigns.
 */
export async function resolveAlertAssignees(db: Executor, view: ProjectView, requested: readonly AssigneeReference[], now: Date): Promise<UserSummary[]> {
  const first = requested[0];
  if (!first) return [];
  const named = "id" in first ? (storableId(first.id) ? eq(users.id, first.id) : sql`false`) : sql`lower(${users.username}) = lower(${first.username})`;
  // The same rule as who reads alerts (the policy's `readAlerts`), direct or inherited, membership not expired;
  // administrators read every project's alerts.
  const readsAlerts = or(
    eq(users.isAdmin, true),
    sql`${projectRoleOf(sql`${users.id}`, view.project.id, view.project.namespaceId, utcDay(now))} >= ${abilityMinimumLevels.readAlerts}`,
  );
  const [user] = await db
    .select(summaryColumns)
    .from(users)
    .where(and(named, eq(users.state, "active"), readsAlerts))
    .limit(1);
  if (!user) throw new BadRequestError(assigneeRefused);
  return [user];
}

const alertAssigneeLinks = { table: alertAssignees, ownerId: alertAssignees.alertId, userId: alertAssignees.userId };

/** The assignees of each alert, by alert id, in the order of their ids. */
export async function assigneesOfAlerts(db: Executor, alertIds: readonly number[]): Promise<Map<number, UserSummary[]>> {
  return assigneesByOwner(db, alertAssigneeLinks, alertIds, summaryColumns);
}

/**
 * Replaces an alert's assignees, in the caller's transaction, and answers the system note that tells the change, or
 * null when nothing changed. The alert's row is locked first, so two concurrent changes each note what they changed.
 */
export async function replaceAlertAssignees(tx: Executor, alertId: number, next: readonly UserSummary[]): Promise<string | null> {
  await tx.select({ id: alerts.id }).from(alerts).where(eq(alerts.id, alertId)).for("update");
  const before = (await assigneesOfAlerts(tx, [alertId])).get(alertId) ?? [];
  const nextIds = new Set(next.map((user) => user.id));
  const beforeIds = new Set(before.map((user) => user.id));
  const added = next.filter((user) => !beforeIds.has(user.id));
  const removed = before.filter((user) => !nextIds.has(user.id));
  if (added.length === 0 && removed.length === 0) return null;
  if (removed.length > 0) {
    await tx.delete(alertAssignees).where(and(eq(alertAssignees.alertId, alertId), inArray(alertAssignees.userId, removed.map((user) => user.id))));
  }
  if (added.length > 0) await tx.insert(alertAssignees).values(added.map((user) => ({ alertId, userId: user.id })));
  return assignmentNote(added, removed);
}

/** Rails' `to_sentence`, as GitLab joins the users of a note: "a", "a and b", "a, b, and c". */
function sentence(words: string[]): string {
  if (words.length <= 2) return words.join(" and ");
  return `${words.slice(0, -1).join(", ")}, and ${words.at(-1)}`;
}

/** GitLab's `change_issuable_assignees` system note: "assigned to @a", "unassigned @b", or both joined by "and". */
export function assignmentNote(added: readonly Pick<UserSummary, "username">[], removed: readonly Pick<UserSummary, "username">[]): string {
  const parts: string[] = [];
  if (added.length > 0) parts.push(`assigned to ${sentence(added.map((user) => `@${user.username}`))}`);
  if (removed.length > 0) parts.push(`unassigned ${sentence(removed.map((user) => `@${user.username}`))}`);
  return parts.join(" and ");
}

/**
 * The list's `assignee_username` filter: alerts assigned the user of that name (none, for a name nobody has). Probed
 * per alert through the join table's key, or read from the user's side through `alert_assignees_user_idx`.
 */
export function assignedToUsername(username: string): SQL {
  return sql`exists (select 1 from ${alertAssignees} where ${alertAssignees.alertId} = ${alerts.id}
    and ${alertAssignees.userId} = (select ${users.id} from ${users} where lower(${users.username}) = lower(${username})))`;
}
