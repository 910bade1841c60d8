import "server-only";
import { inArray } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { issueCommentCounts, milestones, users, type LabelRow, type MilestoneRow, type UserRow } from "@/lib/db/schema";
import { can } from "@/lib/projects/policy";
import { assigneesOfIssues } from "./assignees";
import type { IssueView } from "./issues";
import { sortByTitle } from "./label-rules";
import { labelsOfIssues } from "./labels";

/** An issue with everything its API entity shows: labels (by title), assignees, milestone, who closed it, comments. */
export interface IssueDetails extends IssueView {
  labels: LabelRow[];
  assignees: UserRow[];
  milestone: MilestoneRow | null;
  closedBy: UserRow | null;
  /** The comments the caller may read (internal ones only for those who may read internal notes), from kept counts. */
  userNotesCount: number;
}

/** Loads the details of a page of issues in a few queries, whatever its size. */
export async function withIssueDetails(ctx: Ctx, items: readonly IssueView[]): Promise<IssueDetails[]> {
  const issueIds = items.map(({ issue }) => issue.id);
  const milestoneIds = [...new Set(items.flatMap(({ issue }) => (issue.milestoneId === null ? [] : [issue.milestoneId])))];
  const closerIds = [...new Set(items.flatMap(({ issue }) => (issue.closedById === null ? [] : [issue.closedById])))];
  const [labelsByIssue, assigneesByIssue, milestoneRows, closerRows, noteCounts] = await Promise.all([
    labelsOfIssues(ctx.db, issueIds),
    assigneesOfIssues(ctx.db, issueIds),
    milestoneIds.length > 0 ? ctx.db.select().from(milestones).where(inArray(milestones.id, milestoneIds)) : [],
    closerIds.length > 0 ? ctx.db.select().from(users).where(inArray(users.id, closerIds)) : [],
    issueIds.length > 0 ? ctx.db.select().from(issueCommentCounts).where(inArray(issueCommentCounts.issueId, issueIds)) : [],
  ]);
  const milestoneById = new Map(milestoneRows.map((milestone) => [milestone.id, milestone]));
  const closerById = new Map(closerRows.map((user) => [user.id, user]));
  const countsByIssue = new Map(noteCounts.map((counts) => [counts.issueId, counts]));
  return items.map((item) => {
    const counts = countsByIssue.get(item.issue.id) ?? { comments: 0, internalComments: 0 };
    return {
      ...item,
      labels: sortByTitle(labelsByIssue.get(item.issue.id) ?? []),
      assignees: assigneesByIssue.get(item.issue.id) ?? [],
      milestone: item.issue.milestoneId === null ? null : (milestoneById.get(item.issue.milestoneId) ?? null),
      closedBy: item.issue.closedById === null ? null : (closerById.get(item.issue.closedById) ?? null),
      userNotesCount: counts.comments + (can(item.view, "readInternalNotes") ? counts.internalComments : 0),
    };
  });
}

export async function withIssueDetail(ctx: Ctx, item: IssueView): Promise<IssueDetails> {
  const [details] = await withIssueDetails(ctx, [item]);
  return details!;
}
