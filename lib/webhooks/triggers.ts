import { projectHooks } from "@/lib/db/schema";

/**
 * The hook triggers this service fires: GitLab's hook names (the `trigger` of a delivery's log), the column that
 * turns each on, and its `X-Gitlab-Event` header (GitLab's `hook_name.singularize.titleize`).
 */
export const hookTriggers = {
  push_hooks: { column: projectHooks.pushEvents, event: "Push Hook" },
  tag_push_hooks: { column: projectHooks.tagPushEvents, event: "Tag Push Hook" },
  issue_hooks: { column: projectHooks.issuesEvents, event: "Issue Hook" },
  confidential_issue_hooks: { column: projectHooks.confidentialIssuesEvents, event: "Confidential Issue Hook" },
  note_hooks: { column: projectHooks.noteEvents, event: "Note Hook" },
  confidential_note_hooks: { column: projectHooks.confidentialNoteEvents, event: "Confidential Note Hook" },
  member_hooks: { column: projectHooks.memberEvents, event: "Member Hook" },
  milestone_hooks: { column: projectHooks.milestoneEvents, event: "Milestone Hook" },
} as const;

export type HookTrigger = keyof typeof hookTriggers;

export function isHookTrigger(value: unknown): value is HookTrigger {
  return typeof value === "string" && Object.hasOwn(hookTriggers, value);
}
