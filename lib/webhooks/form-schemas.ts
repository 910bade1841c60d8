import { z } from "zod";

/** The webhook form of Settings › Webhooks. Pure, so the form and its server actions share it. */
export const hookFormSchema = z.object({
  url: z.string().trim().min(1, "URL can't be blank"),
  name: z.string().max(255),
  description: z.string().max(2048),
  /** Blank when editing: the token stays as it is (it is never shown). */
  token: z.string(),
  pushEvents: z.boolean(),
  branchFilterStrategy: z.enum(["wildcard", "regex", "all_branches"]),
  pushEventsBranchFilter: z.string(),
  tagPushEvents: z.boolean(),
  issuesEvents: z.boolean(),
  confidentialIssuesEvents: z.boolean(),
  noteEvents: z.boolean(),
  confidentialNoteEvents: z.boolean(),
  memberEvents: z.boolean(),
  milestoneEvents: z.boolean(),
  enableSslVerification: z.boolean(),
});

export type HookForm = z.infer<typeof hookFormSchema>;

export const emptyHookForm: HookForm = {
  url: "",
  name: "",
  description: "",
  token: "",
  pushEvents: true,
  branchFilterStrategy: "all_branches",
  pushEventsBranchFilter: "",
  tagPushEvents: false,
  issuesEvents: false,
  confidentialIssuesEvents: false,
  noteEvents: false,
  confidentialNoteEvents: false,
  memberEvents: false,
  milestoneEvents: false,
  enableSslVerification: true,
};

/** The triggers a Maintainer can test from the list, with GitLab's labels. */
export const hookTestOptions = [
  { value: "push_events", label: "Push events" },
  { value: "tag_push_events", label: "Tag push events" },
  { value: "issues_events", label: "Issue events" },
  { value: "confidential_issues_events", label: "Confidential issue events" },
  { value: "note_events", label: "Comment events" },
  { value: "confidential_note_events", label: "Confidential comment events" },
  { value: "member_events", label: "Member events" },
  { value: "milestone_events", label: "Milestone events" },
] as const;
