import "server-only";
import { env } from "@/lib/env";
import { projectFullPath, projectWebUrl } from "@/lib/projects/serialize";
import { serializeUserBasic } from "@/lib/users/serialize";
import type { IssueView } from "./issues";
import type { MilestoneView } from "./milestones";
import type { NoteView } from "./notes";

export function issueWebUrl({ view, issue }: Pick<IssueView, "view" | "issue">): string {
  return `${projectWebUrl(view)}/-/issues/${issue.iid}`;
}

/** GitLab's issue entity, limited to what this service keeps. */
export function serializeIssue(issueView: IssueView) {
  const { issue, author } = issueView;
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
    labels: [],
    author: serializeUserBasic(author),
    confidential: issue.confidential,
    issue_type: issue.issueType,
    web_url: issueWebUrl(issueView),
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
