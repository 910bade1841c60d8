import "server-only";
import { eq, or, sql, type SQL } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { literal } from "@/lib/db";
import { issues } from "@/lib/db/schema";
import { accessLevelIn, type Viewer } from "@/lib/projects/access";
import { abilityMinimumLevels, can } from "@/lib/projects/policy";
import type { ProjectView } from "@/lib/projects/projects";

/**
 * Who may read an issue of a project the caller sees: anyone, except for confidential issues, which only their author
 * and those who may read confidential issues (Reporters and above, admins) see. As SQL on `issues`, so lists and
 * counts agree.
 */
export function issueReadableBy(ctx: Ctx, view: ProjectView): SQL {
  const user = actingUser(ctx);
  if (can(view, "readConfidentialIssues")) return sql`true`;
  if (!user) return eq(issues.confidential, false);
  return or(eq(issues.confidential, false), eq(issues.authorId, user.id))!;
}

/**
 * The same rule for lists that span projects, over `issues` joined to its `projects` row (whose visibility the list
 * checks itself): the viewer's role is looked up per project.
 */
export function issueReadableInItsProject(viewer: Viewer): SQL {
  if (viewer.kind === "everything") return sql`true`;
  if (viewer.kind === "anonymous") return eq(issues.confidential, false);
  return or(
    eq(issues.confidential, false),
    eq(issues.authorId, viewer.id),
    sql`coalesce(${accessLevelIn(viewer)}, 0) >= ${literal(abilityMinimumLevels.readConfidentialIssues)}`,
  )!;
}

/**
 * The same rule on `issues` alone, for a list over a known set of projects (a group's): `projectsWhere(condition)`
 * keeps the issues of the set's projects that meet a condition on `projects`. The projects where the viewer reads
 * confidential issues are then one array read once, not a role lookup per issue.
 */
export function issueReadableAmong(viewer: Viewer, projectsWhere: (condition: SQL) => SQL): SQL {
  if (viewer.kind === "everything") return sql`true`;
  if (viewer.kind === "anonymous") return eq(issues.confidential, false);
  return or(
    eq(issues.confidential, false),
    eq(issues.authorId, viewer.id),
    projectsWhere(sql`coalesce(${accessLevelIn(viewer)}, 0) >= ${literal(abilityMinimumLevels.readConfidentialIssues)}`),
  )!;
}

/**
 * The confidential issues a user wrote (id, project, state), to be filtered further by project, state or label. The
 * subquery is fenced (`offset 0`) so PostgreSQL always reads it from `issues_confidential_author_idx`: a prepared
 * statement's generic plan does not know which project a condition names, and otherwise walks a project index — all
 * of a big project's open issues, to find a non-member's none (20 ms per page at 600,000 issues). The cost is bounded
 * by the confidential issues the user wrote.
 */
export function confidentialIssuesWrittenBy(userId: number) {
  // Written out, as the query builder leaves out an `offset 0`.
  const from = sql`(select ${issues.id} as id, ${issues.projectId} as project_id, ${issues.state} as state from ${issues}
    where ${issues.authorId} = ${userId} and ${issues.confidential} offset 0) own_confidential`;
  return { from, id: sql<number>`own_confidential.id`, projectId: sql<number>`own_confidential.project_id`, state: sql<string>`own_confidential.state` };
}
