import "server-only";
import { and, eq, getTableColumns, inArray, or, sql } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { issueAssignees, users, type UserRow } from "@/lib/db/schema";
import { projectRoleOf, utcDay } from "@/lib/projects/access";
import type { ProjectView } from "@/lib/projects/projects";
import { assigneesByOwner } from "@/lib/users/assignees";

/**
 * Of the users asked for, those who may be assigned an issue of the project: active users who can read its issues
 * (anyone for a public project, any internal user for an internal one, members of a private one; admins always), as
 * GitLab's `filter_assignees` keeps them. The others are dropped without a word, as GitLab drops them.
 */
export async function assignableUsers(db: Executor, view: ProjectView, userIds: readonly number[], now: Date): Promise<number[]> {
  const requested = [...new Set(userIds)].filter((id) => id > 0 && id <= 2_147_483_647);
  if (requested.length === 0) return [];
  const member = sql`${projectRoleOf(sql`${users.id}`, view.project.id, view.project.namespaceId, utcDay(now))} is not null`;
  const readsIssues =
    view.project.visibility === "public"
      ? sql`true`
      : view.project.visibility === "internal"
        ? or(eq(users.external, false), member)!
        : or(eq(users.isAdmin, true), member)!;
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(inArray(users.id, requested), eq(users.state, "active"), readsIssues));
  const found = new Set(rows.map((row) => row.id));
  return requested.filter((id) => found.has(id));
}

/** Replaces an issue's assignees. */
export async function setIssueAssignees(tx: Executor, issueId: number, userIds: readonly number[]): Promise<void> {
  await tx.delete(issueAssignees).where(eq(issueAssignees.issueId, issueId));
  if (userIds.length > 0) await tx.insert(issueAssignees).values(userIds.map((userId) => ({ issueId, userId })));
}

const issueAssigneeLinks = { table: issueAssignees, ownerId: issueAssignees.issueId, userId: issueAssignees.userId };
const userColumns = getTableColumns(users);

/** The assignees of each issue, by issue id, in the order of their ids: whole user rows, as hooks and entities read. */
export async function assigneesOfIssues(db: Executor, issueIds: readonly number[]): Promise<Map<number, UserRow[]>> {
  return assigneesByOwner(db, issueAssigneeLinks, issueIds, userColumns);
}
