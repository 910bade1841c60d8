import "server-only";
import { z } from "zod";
import { entity, isoDate, isoDateTime } from "@/lib/api/entities";
import { env } from "@/lib/env";
import { projectFullPath, projectWebUrl } from "@/lib/projects/serialize";
import { serializeUserBasic, userBasicEntity } from "@/lib/users/serialize";
import { issueTypes, type LabelRow } from "@/lib/db/schema";
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

const labelBasicShape = {
  id: z.number().int(),
  name: z.string(),
  color: z.string(),
  description: z.string().nullable(),
  description_html: z.string(),
  text_color: z.string(),
  remove_on_close: z.boolean(),
};

export const labelBasicEntity = entity("LabelBasic", "A label as issues show it with `with_labels_details=true`", z.strictObject(labelBasicShape));

export const projectLabelEntity = entity(
  "ProjectLabel",
  "A project's label; the issue counts with `with_counts=true`",
  z.strictObject({
    ...labelBasicShape,
    open_issues_count: z.number().int().optional(),
    closed_issues_count: z.number().int().optional(),
    open_merge_requests_count: z.number().int().optional(),
    subscribed: z.boolean(),
    priority: z.null(),
    is_project_label: z.boolean(),
  }),
);

/** What issues and milestones open with: numbered within their project (`iid`), titled and described. */
const numberedInProjectShape = {
  id: z.number().int(),
  iid: z.number().int(),
  project_id: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
};

export const milestoneEntity = entity(
  "Milestone",
  "A project's milestone",
  z.strictObject({
    ...numberedInProjectShape,
    state: z.enum(["active", "closed"]),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    due_date: isoDate.nullable(),
    start_date: isoDate.nullable(),
    expired: z.boolean(),
    web_url: z.string(),
  }),
);

export const issueEntity = entity(
  "Issue",
  "An issue or incident; `labels` as names, or as LabelBasic objects with `with_labels_details=true`",
  z.strictObject({
    ...numberedInProjectShape,
    state: z.enum(["opened", "closed"]),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    closed_at: isoDateTime.nullable(),
    closed_by: userBasicEntity.nullable(),
    labels: z.union([z.array(z.string()), z.array(labelBasicEntity)]),
    milestone: milestoneEntity.nullable(),
    assignees: z.array(userBasicEntity),
    author: userBasicEntity,
    type: z.enum(["ISSUE", "INCIDENT"]),
    assignee: userBasicEntity.nullable(),
    user_notes_count: z.number().int(),
    merge_requests_count: z.number().int(),
    upvotes: z.number().int(),
    downvotes: z.number().int(),
    due_date: isoDate.nullable(),
    confidential: z.boolean(),
    discussion_locked: z.boolean().nullable(),
    issue_type: z.enum(issueTypes),
    web_url: z.string(),
    time_stats: z.strictObject({
      time_estimate: z.number().int(),
      total_time_spent: z.number().int(),
      human_time_estimate: z.string().nullable(),
      human_total_time_spent: z.string().nullable(),
    }),
    task_completion_status: z.strictObject({ count: z.number().int(), completed_count: z.number().int() }),
    has_tasks: z.boolean(),
    /** With tasks only. */
    task_status: z.string().optional(),
    _links: z.strictObject({
      self: z.string(),
      notes: z.string(),
      award_emoji: z.string(),
      project: z.string(),
      closed_as_duplicate_of: z.string().nullable(),
    }),
    references: z.strictObject({ short: z.string(), relative: z.string(), full: z.string() }),
    severity: z.string(),
    moved_to_id: z.number().int().nullable(),
    imported: z.boolean(),
    imported_from: z.string(),
    service_desk_reply_to: z.string().nullable(),
  }),
);

export const noteEntity = entity(
  "Note",
  "A comment on an issue",
  z.strictObject({
    id: z.number().int(),
    type: z.null(),
    body: z.string(),
    attachment: z.null(),
    author: userBasicEntity,
    created_at: isoDateTime,
    updated_at: isoDateTime,
    system: z.boolean(),
    noteable_id: z.number().int(),
    noteable_type: z.literal("Issue"),
    project_id: z.number().int(),
    resolvable: z.boolean(),
    confidential: z.boolean(),
    internal: z.boolean(),
    noteable_iid: z.number().int(),
    commands_changes: z.strictObject({}),
  }),
);

/** GitLab's LabelBasic: a label as issues show it with `with_labels_details=true`. */
export function serializeLabelBasic(label: LabelRow): z.infer<typeof labelBasicEntity> {
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
export function serializeProjectLabel({ label, counts }: LabelView): z.infer<typeof projectLabelEntity> {
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
export function serializeIssue(details: IssueDetails, now: Date, { withLabelsDetails = false } = {}): z.infer<typeof issueEntity> {
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
    type: issue.issueType === "incident" ? "INCIDENT" : "ISSUE",
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
export function serializeNote({ issueView, note, author }: NoteView): z.infer<typeof noteEntity> {
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
export function serializeMilestone({ view, milestone }: MilestoneView, now: Date): z.infer<typeof milestoneEntity> {
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
