import "server-only";
import { env } from "@/lib/env";
import { projectFullPath, projectWebUrl } from "@/lib/projects/serialize";
import { serializeUserBasic } from "@/lib/users/serialize";
import type { LabelRow } from "@/lib/db/schema";
import type { IssueDetails } from "./issue-details";
import type { IssueView } from "./issues";
import { labelTextColor } from "./label-rules";
import type { LabelView } from "./labels";
import { taskCompletion, taskStatus } from "./task-list";
import type { MilestoneView } from "./milestones";
import type { NoteView } from "./notes";

export function issueWebUrl({ view, issue }: { view: Pick<IssueView["view"], "project" | "namespace">; issue: Pick<IssueView["issue"], "iid"> }): string {
  return `${projectWebUrl(view)}/-/issues/${issue.iid}`;
}

/** GitLab's LabelBasic: a label as issues show it with `with_labels_details=true`. */
export function serializeLabelBasic(label: LabelRow) {
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    // Descriptions are shown as written: the text, HTML-escaped.
    description_html: escapeHtml(label.description ?? ""),
    text_color: labelTextColor(label.color),
    remove_on_close: false,
  };
}

/** GitLab's ProjectLabel: counts of the issues the caller may read (with `with_counts=true`); no priorities here. */
export function serializeProjectLabel({ label, counts }: LabelView) {
  return {
    ...serializeLabelBasic(label),
    ...(counts ? { open_issues_count: counts.openIssues, closed_issues_count: counts.closedIssues, open_merge_requests_count: 0 } : {}),
    subscribed: false,
    priority: null,
    is_project_label: true,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * GitLab's issue entity (`Entities::Issue`), with what this service keeps: labels as names, or as LabelBasic objects
 * with `withLabelsDetails`; votes, merge requests and time tracking at zero.
 */
export function serializeIssue(details: IssueDetails, now: Date, { withLabelsDetails = false } = {}) {
  const { view, issue, author, assignees, milestone, closedBy } = details;
  const apiIssueUrl = `${env.EXTERNAL_URL}/api/v4/projects/${issue.projectId}/issues/${issue.iid}`;
  const tasks = taskCompletion(issue.description);
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.projectId,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: issue.createdAt.toISOString(),
    updated_at: issue.updatedAt.toISOString(),
    closed_at: issue.closedAt?.toISOString() ?? null,
    closed_by: closedBy ? serializeUserBasic(closedBy) : null,
    labels: withLabelsDetails ? details.labels.map(serializeLabelBasic) : details.labels.map((label) => label.title),
    milestone: milestone ? serializeMilestone({ view, milestone }, now) : null,
    assignees: assignees.map(serializeUserBasic),
    author: serializeUserBasic(author),
    type: issue.issueType.toUpperCase(),
    assignee: assignees[0] ? serializeUserBasic(assignees[0]) : null,
    user_notes_count: details.userNotesCount,
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: issue.dueDate,
    confidential: issue.confidential,
    discussion_locked: null,
    issue_type: issue.issueType,
    web_url: issueWebUrl(details),
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    task_completion_status: tasks,
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: taskStatus(tasks) } : {}),
    _links: {
      self: apiIssueUrl,
      notes: `${apiIssueUrl}/notes`,
      award_emoji: `${apiIssueUrl}/award_emoji`,
      project: `${env.EXTERNAL_URL}/api/v4/projects/${issue.projectId}`,
      closed_as_duplicate_of: null,
    },
    references: { short: `#${issue.iid}`, relative: `#${issue.iid}`, full: `${projectFullPath(view)}#${issue.iid}` },
    severity: "UNKNOWN",
    moved_to_id: null,
    imported: false,
    imported_from: "none",
    service_desk_reply_to: null,
  };
}

/** GitLab's note entity. */
export function serializeNote({ issueView, note, author }: NoteView) {
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: serializeUserBasic(author),
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
    system: note.system,
    noteable_id: issueView.issue.id,
    noteable_type: "Issue",
    project_id: note.projectId,
    resolvable: false,
    confidential: note.internal,
    internal: note.internal,
    noteable_iid: issueView.issue.iid,
    commands_changes: {},
  };
}

/** GitLab's milestone entity. */
export function serializeMilestone({ view, milestone }: MilestoneView, now: Date) {
  return {
    id: milestone.id,
    iid: milestone.iid,
    project_id: milestone.projectId,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: milestone.createdAt.toISOString(),
    updated_at: milestone.updatedAt.toISOString(),
    due_date: milestone.dueDate,
    start_date: milestone.startDate,
    expired: milestone.dueDate !== null && milestone.dueDate < now.toISOString().slice(0, 10),
    web_url: `${env.EXTERNAL_URL}/${projectFullPath(view)}/-/milestones/${milestone.iid}`,
  };
}
