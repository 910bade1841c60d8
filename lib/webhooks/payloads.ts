import "server-only";
import { createHash } from "node:crypto";
import type { AlertRow, IssueRow, LabelRow, MilestoneRow, NoteRow, ProjectMemberRow, UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { accessLevelNames } from "@/lib/projects/roles";
import { projectDefaultBranch, projectFullPath, projectWebUrl } from "@/lib/projects/serialize";
import type { ProjectView } from "@/lib/projects/projects";
import { userAvatarUrl } from "@/lib/users/serialize";

/**
 * GitLab's webhook payloads (`Gitlab::DataBuilder::*`, the models' `hook_attrs`), built from what this service keeps.
 * What it does not keep is as on a GitLab project that never used it: no time tracking (0 and null), no relative
 * positions, discussion locks, moves or duplicates (null), no SSH (the SSH URLs are null, `url` is the HTTP one), no
 * protected branches. Pure: every value comes from the arguments.
 */

type ProjectRef = Pick<ProjectView, "project" | "namespace">;

/** Rails' `Time#to_s` in UTC, the form GitLab's hook payloads show model timestamps in: `2015-05-17 17:06:40 UTC`. */
export function hookTime(time: Date | null): string | null {
  if (!time) return null;
  return `${time.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** ISO 8601 to the second, as GitLab's member payloads show times: `2020-12-11T04:57:22Z`. */
function isoSeconds(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}

const visibilityLevels = { private: 0, internal: 10, public: 20 } as const;

/** `Project#hook_attrs`. */
export function projectHookAttrs(view: ProjectRef) {
  const webUrl = projectWebUrl(view);
  return {
    id: view.project.id,
    name: view.project.name,
    description: view.project.description,
    web_url: webUrl,
    avatar_url: null,
    git_ssh_url: null,
    git_http_url: `${webUrl}.git`,
    namespace: view.namespace.name,
    visibility_level: visibilityLevels[view.project.visibility],
    path_with_namespace: projectFullPath(view),
    default_branch: projectDefaultBranch(view),
    ci_config_path: null,
    homepage: webUrl,
    url: `${webUrl}.git`,
    ssh_url: null,
    http_url: `${webUrl}.git`,
  };
}

/** The deprecated `repository` member: part of the project's hook attributes. */
function repositoryAttrs(view: ProjectRef, { withGitUrls }: { withGitUrls: boolean }) {
  const project = projectHookAttrs(view);
  const base = { name: project.name, url: project.url, description: project.description, homepage: project.homepage };
  return withGitUrls ? { ...base, git_http_url: project.git_http_url, git_ssh_url: project.git_ssh_url, visibility_level: project.visibility_level } : base;
}

/** An email address is shown only when public; this service has no public addresses, so it is redacted, as GitLab. */
const redactedEmail = "[REDACTED]";

/** `User#hook_attrs`. */
export function userHookAttrs(user: Pick<UserRow, "id" | "name" | "username">) {
  return { id: user.id, name: user.name, username: user.username, avatar_url: userAvatarUrl(user), email: redactedEmail };
}

/** `Label#hook_attrs`. */
export function labelHookAttrs(label: LabelRow) {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.projectId,
    created_at: hookTime(label.createdAt),
    updated_at: hookTime(label.updatedAt),
    template: false,
    description: label.description,
    type: "ProjectLabel",
    group_id: null,
  };
}

export interface IssueState {
  issue: IssueRow;
  labels: LabelRow[];
  assignees: Pick<UserRow, "id" | "name" | "username">[];
}

const stateIds = { opened: 1, closed: 2 } as const;

/** `Issue#hook_attrs` (`Gitlab::HookData::IssueBuilder`). */
export function issueHookAttrs(view: ProjectRef, { issue, labels, assignees }: IssueState) {
  return {
    author_id: issue.authorId,
    closed_at: hookTime(issue.closedAt),
    confidential: issue.confidential,
    created_at: hookTime(issue.createdAt),
    description: issue.description,
    discussion_locked: null,
    due_date: issue.dueDate,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestoneId,
    moved_to_id: null,
    duplicated_to_id: null,
    project_id: issue.projectId,
    relative_position: null,
    state_id: stateIds[issue.state],
    time_estimate: 0,
    title: issue.title,
    updated_at: hookTime(issue.updatedAt),
    updated_by_id: null,
    url: `${projectWebUrl(view)}/-/issues/${issue.iid}`,
    total_time_spent: 0,
    time_change: 0,
    human_total_time_spent: null,
    human_time_change: null,
    human_time_estimate: null,
    assignee_ids: assignees.map((assignee) => assignee.id),
    assignee_id: assignees[0]?.id ?? null,
    labels: labels.map(labelHookAttrs),
    state: issue.state,
    severity: "unknown",
    type: issue.issueType === "incident" ? "Incident" : "Issue",
  };
}

export type IssueHookAction = "open" | "close" | "reopen" | "update";

type Change = { previous: unknown; current: unknown };

/**
 * The issue's `changes`: each attribute GitLab reports that differs between `before` (null: the issue was just
 * opened, so everything set came from nothing) and `after`, and the labels and assignees when they changed.
 */
export function issueChanges(before: IssueState | null, after: IssueState): Record<string, Change> {
  // Each attribute's stored value (compared) and its payload form (reported).
  const attributes = (issue: IssueRow): Record<string, [stored: unknown, shown: unknown]> => ({
    author_id: [issue.authorId, issue.authorId],
    closed_at: [issue.closedAt?.getTime() ?? null, hookTime(issue.closedAt)],
    confidential: [issue.confidential, issue.confidential],
    created_at: [issue.createdAt.getTime(), hookTime(issue.createdAt)],
    description: [issue.description, issue.description],
    due_date: [issue.dueDate, issue.dueDate],
    id: [issue.id, issue.id],
    iid: [issue.iid, issue.iid],
    milestone_id: [issue.milestoneId, issue.milestoneId],
    project_id: [issue.projectId, issue.projectId],
    state_id: [stateIds[issue.state], stateIds[issue.state]],
    title: [issue.title, issue.title],
    updated_at: [issue.updatedAt.getTime(), hookTime(issue.updatedAt)],
  });
  // What a new issue's attributes were before it existed: their defaults.
  const defaults: Record<string, unknown> = { confidential: false, state_id: stateIds.opened };
  const previous = before ? attributes(before.issue) : null;
  const changes: Record<string, Change> = {};
  for (const [key, [stored, shown]] of Object.entries(attributes(after.issue))) {
    const [wasStored, wasShown] = previous ? previous[key]! : [defaults[key] ?? null, defaults[key] ?? null];
    if (wasStored !== stored) changes[key] = { previous: wasShown, current: shown };
  }
  if (before) {
    const labelIds = (state: IssueState) => state.labels.map((label) => label.id).join(",");
    if (labelIds(before) !== labelIds(after)) {
      changes.labels = { previous: before.labels.map(labelHookAttrs), current: after.labels.map(labelHookAttrs) };
    }
    const assigneeIds = (state: IssueState) => state.assignees.map((assignee) => assignee.id).join(",");
    if (assigneeIds(before) !== assigneeIds(after)) {
      changes.assignees = { previous: before.assignees.map(userHookAttrs), current: after.assignees.map(userHookAttrs) };
    }
  }
  return changes;
}

/** `Gitlab::DataBuilder::Issuable#build` for an issue, with its `action`. */
export function issueHookData(
  view: ProjectRef,
  user: Pick<UserRow, "id" | "name" | "username">,
  state: IssueState,
  action: IssueHookAction,
  changes: Record<string, Change>,
) {
  return {
    object_kind: "issue",
    event_type: state.issue.confidential ? "confidential_issue" : "issue",
    user: userHookAttrs(user),
    project: projectHookAttrs(view),
    object_attributes: { ...issueHookAttrs(view, state), action },
    labels: state.labels.map(labelHookAttrs),
    changes,
    repository: repositoryAttrs(view, { withGitUrls: false }),
    ...(state.assignees.length > 0 ? { assignees: state.assignees.map(userHookAttrs) } : {}),
  };
}

/** A note is confidential, for hooks, when it is internal or its issue is confidential. */
export function noteIsConfidential(note: Pick<NoteRow, "internal">, issue: Pick<IssueRow, "confidential">): boolean {
  return note.internal || issue.confidential;
}

/**
 * A discussion id for a note that starts its own discussion (GitLab: a SHA-1 over the noteable and a random value);
 * this service has no threads, so each note is its own discussion, named the same every time.
 */
function discussionId(note: Pick<NoteRow, "id" | "issueId">): string {
  return createHash("sha1").update(`discussion-issue-${note.issueId}-note-${note.id}`).digest("hex");
}

/** `Gitlab::DataBuilder::Note.build` for a comment on an issue. */
export function noteHookData(
  view: ProjectRef,
  user: Pick<UserRow, "id" | "name" | "username">,
  note: NoteRow,
  issueState: IssueState,
  action: "create" | "update",
) {
  const issueUrl = `${projectWebUrl(view)}/-/issues/${issueState.issue.iid}`;
  return {
    object_kind: "note",
    event_type: noteIsConfidential(note, issueState.issue) ? "confidential_note" : "note",
    user: userHookAttrs(user),
    project_id: view.project.id,
    project: projectHookAttrs(view),
    object_attributes: {
      attachment: null,
      author_id: note.authorId,
      change_position: null,
      commit_id: null,
      created_at: hookTime(note.createdAt),
      discussion_id: discussionId(note),
      id: note.id,
      line_code: null,
      note: note.body,
      noteable_id: issueState.issue.id,
      noteable_type: "Issue",
      original_position: null,
      position: null,
      project_id: note.projectId,
      resolved_at: null,
      resolved_by_id: null,
      resolved_by_push: null,
      st_diff: null,
      system: note.system,
      type: null,
      updated_at: hookTime(note.updatedAt),
      updated_by_id: null,
      internal: note.internal,
      description: note.body,
      url: `${issueUrl}#note_${note.id}`,
      action,
    },
    repository: repositoryAttrs(view, { withGitUrls: false }),
    issue: issueHookAttrs(view, issueState),
  };
}

export type MilestoneHookAction = "create" | "close" | "reopen" | "delete";

/** `Gitlab::DataBuilder::Milestone.build`. */
export function milestoneHookData(view: ProjectRef, milestone: MilestoneRow, action: MilestoneHookAction) {
  return {
    object_kind: "milestone",
    event_type: "milestone",
    project: projectHookAttrs(view),
    object_attributes: {
      id: milestone.id,
      iid: milestone.iid,
      title: milestone.title,
      description: milestone.description,
      state: milestone.state,
      created_at: hookTime(milestone.createdAt),
      updated_at: hookTime(milestone.updatedAt),
      due_date: milestone.dueDate,
      start_date: milestone.startDate,
      group_id: null,
      project_id: milestone.projectId,
    },
    action,
  };
}

export type MemberHookEvent = "user_add_to_project" | "user_update_for_project" | "user_remove_from_project";

/**
 * A project membership change: GitLab's member hook (`Gitlab::HookData::ProjectMemberBuilder`, as its group member
 * hook and the system hook word it), for the project.
 */
export function memberHookData(
  view: ProjectRef,
  member: Pick<ProjectMemberRow, "accessLevel" | "expiresAt" | "createdAt">,
  user: Pick<UserRow, "id" | "name" | "username">,
  eventName: MemberHookEvent,
  now: Date,
) {
  return {
    created_at: isoSeconds(member.createdAt),
    updated_at: isoSeconds(eventName === "user_add_to_project" ? member.createdAt : now),
    project_name: view.project.name,
    project_path: view.project.path,
    project_path_with_namespace: projectFullPath(view),
    project_id: view.project.id,
    user_username: user.username,
    user_name: user.name,
    user_email: redactedEmail,
    user_id: user.id,
    access_level: accessLevelNames[member.accessLevel] ?? null,
    project_visibility: view.project.visibility,
    expires_at: member.expiresAt ? `${member.expiresAt}T00:00:00Z` : null,
    event_name: eventName,
  };
}

/** A commit as a push payload lists it (`Commit#hook_attrs` with the files it changed). */
export interface PushedCommit {
  id: string;
  message: string;
  title: string;
  /** ISO 8601 with the author's offset, as git records it. */
  timestamp: string;
  author: { name: string; email: string };
  added: string[];
  modified: string[];
  removed: string[];
}

/** GitLab lists at most this many commits in a push payload: the newest, oldest first. */
export const maxPushPayloadCommits = 20;

/** `Gitlab::DataBuilder::Push.build`. */
export function pushHookData(
  view: ProjectRef,
  user: Pick<UserRow, "id" | "name" | "username">,
  push: {
    ref: string;
    before: string;
    after: string;
    checkoutSha: string | null;
    message: string | null;
    commits: PushedCommit[];
    totalCommitsCount: number;
  },
) {
  const kind = push.ref.startsWith("refs/tags/") ? "tag_push" : "push";
  const webUrl = projectWebUrl(view);
  return {
    object_kind: kind,
    event_name: kind,
    before: push.before,
    after: push.after,
    ref: push.ref,
    ref_protected: false,
    checkout_sha: push.checkoutSha,
    message: push.message,
    user_id: user.id,
    user_name: user.name,
    user_username: user.username,
    user_email: null,
    user_avatar: userAvatarUrl(user),
    project_id: view.project.id,
    project: projectHookAttrs(view),
    commits: push.commits.slice(-maxPushPayloadCommits).map((commit) => ({
      id: commit.id,
      message: commit.message,
      title: commit.title,
      timestamp: commit.timestamp,
      url: `${webUrl}/-/commit/${commit.id}`,
      author: commit.author,
      added: commit.added,
      modified: commit.modified,
      removed: commit.removed,
    })),
    total_commits_count: push.totalCommitsCount,
    push_options: {},
    repository: repositoryAttrs(view, { withGitUrls: true }),
  };
}

/** `Gitlab::DataBuilder::Alert.build`: what GitLab's alert integrations are given; `url` is the alert's details page. */
export function alertHookData(alert: Pick<AlertRow, "title" | "severity" | "eventCount" | "status" | "startedAt">, detailsUrl: string) {
  return {
    object_kind: "alert",
    object_attributes: {
      title: alert.title,
      url: detailsUrl,
      severity: alert.severity,
      events: alert.eventCount,
      status: alert.status,
      started_at: alert.startedAt.toISOString(),
    },
  };
}

/** The external URL GitLab sends as `X-Gitlab-Instance`. */
export function instanceUrl(): string {
  return env.EXTERNAL_URL;
}
