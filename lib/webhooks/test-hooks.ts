import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { issueColumns, issues, milestones, noteColumns, notes, projectMembers, users } from "@/lib/db/schema";
import { UnauthorizedError, UnprocessableError } from "@/lib/errors";
import { git, repositoryPath } from "@/lib/git/repositories";
import { projectDefaultBranch } from "@/lib/projects/serialize";
import type { ProjectView } from "@/lib/projects/projects";
import { randomUUID } from "node:crypto";
import { executeHook } from "./delivery";
import { issueStateOf } from "./events";
import { checkEndpointLimit } from "@/lib/rate-limits/endpoint-limits";
import { findHook, projectForHooks } from "./hooks";
import { issueHookData, memberHookData, milestoneHookData, noteHookData, pushHookData, type PushedCommit } from "./payloads";
import type { HookTrigger } from "./triggers";

/**
 * The triggers `POST …/hooks/:hook_id/test/:trigger` takes: GitLab's project hook triggers. Those of events this
 * service has none of are accepted and answered as GitLab answers a project without such data.
 */
export const testTriggers = [
  "push_events",
  "tag_push_events",
  "issues_events",
  "confidential_issues_events",
  "note_events",
  "confidential_note_events",
  "member_events",
  "milestone_events",
  "merge_requests_events",
  "job_events",
  "pipeline_events",
  "wiki_page_events",
  "releases_events",
  "emoji_events",
  "resource_access_token_events",
] as const;
export type TestTrigger = (typeof testTriggers)[number];

const hookNames: Partial<Record<TestTrigger, HookTrigger>> = {
  push_events: "push_hooks",
  tag_push_events: "tag_push_hooks",
  issues_events: "issue_hooks",
  confidential_issues_events: "confidential_issue_hooks",
  note_events: "note_hooks",
  confidential_note_events: "confidential_note_hooks",
  member_events: "member_hooks",
  milestone_events: "milestone_hooks",
};

/** GitLab's `TestHooks` refusals for a project without what a trigger's sample is made of. */
const missing: Record<TestTrigger, string> = {
  push_events: "Ensure the project has at least one commit.",
  tag_push_events: "Ensure the project has at least one commit.",
  issues_events: "Ensure the project has issues.",
  confidential_issues_events: "Ensure the project has issues.",
  note_events: "Ensure the project has notes.",
  confidential_note_events: "Ensure the project has notes.",
  member_events: "Ensure the project has members.",
  milestone_events: "Ensure the project has milestones.",
  merge_requests_events: "Ensure the project has merge requests.",
  job_events: "Ensure the project has CI jobs.",
  pipeline_events: "Ensure the project has CI pipelines.",
  wiki_page_events: "Ensure the wiki is enabled and has pages.",
  releases_events: "Ensure the project has releases.",
  emoji_events: "Ensure the project has notes.",
  resource_access_token_events: "Ensure the project has access tokens.",
};

type Actor = NonNullable<ReturnType<typeof actingUser>>;

/** The sample payload of a trigger: from the project's latest issue, comment, milestone, member or commits. */
async function sampleData(ctx: Ctx, view: ProjectView, actor: Actor, trigger: TestTrigger): Promise<unknown | null> {
  const projectId = view.project.id;
  switch (trigger) {
    case "push_events":
    case "tag_push_events":
      return pushSample(view, actor);
    case "issues_events":
    case "confidential_issues_events": {
      const [issue] = await ctx.db.select(issueColumns).from(issues).where(eq(issues.projectId, projectId)).orderBy(desc(issues.id)).limit(1);
      if (!issue) return null;
      const state = await issueStateOf(ctx.db, issue);
      const { object_attributes: attributes, ...rest } = issueHookData(view, actor, state, "open", {});
      // GitLab's sample is the issue's hook data as it stands, without an action.
      const { action: _action, ...withoutAction } = attributes;
      return { ...rest, object_attributes: withoutAction };
    }
    case "note_events":
    case "confidential_note_events": {
      const [row] = await ctx.db
        .select({ note: noteColumns, issue: issueColumns })
        .from(notes)
        .innerJoin(issues, eq(issues.id, notes.issueId))
        .where(and(eq(notes.projectId, projectId), eq(notes.system, false)))
        .orderBy(desc(notes.id))
        .limit(1);
      if (!row) return null;
      return noteHookData(view, actor, row.note, await issueStateOf(ctx.db, row.issue), "create");
    }
    case "milestone_events": {
      const [milestone] = await ctx.db.select().from(milestones).where(eq(milestones.projectId, projectId)).orderBy(desc(milestones.id)).limit(1);
      return milestone ? milestoneHookData(view, milestone, "create") : null;
    }
    case "member_events": {
      const [row] = await ctx.db
        .select({ member: projectMembers, user: users })
        .from(projectMembers)
        .innerJoin(users, eq(users.id, projectMembers.userId))
        .where(eq(projectMembers.projectId, projectId))
        .orderBy(desc(projectMembers.createdAt))
        .limit(1);
      return row ? memberHookData(view, row.member, row.user, "user_add_to_project", ctx.now) : null;
    }
    default:
      return null;
  }
}

/** GitLab's push sample (`build_sample`): the newest three commits of the default branch, newest first. */
export async function pushSample(view: ProjectView, actor: Actor): Promise<ReturnType<typeof pushHookData> | null> {
  const repository = repositoryPath(view.project.id);
  const branch = projectDefaultBranch(view);
  const output = await git(["log", "-3", `--format=%H%x00%an%x00%ae%x00%cI%x00%B%x01`, `refs/heads/${branch}`, "--"], { cwd: repository }).catch(() => "");
  const commits: PushedCommit[] = output
    .split("\u0001\n")
    .map((record) => record.replace(/^\n/, "").split("\u0000"))
    .filter((fields) => fields.length >= 5 && fields[0])
    .map(([id, name, email, timestamp, ...message]) => {
      const text = message.join("\u0000").replace(/\u0001$/, "");
      return {
        id: id!,
        message: text,
        title: text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "",
        timestamp: timestamp!,
        author: { name: name!, email: email! },
        added: [],
        modified: [],
        removed: [],
      };
    });
  if (commits.length === 0) return null;
  return pushHookData(view, actor, {
    ref: `refs/heads/${branch}`,
    before: commits.at(-1)!.id,
    after: commits[0]!.id,
    checkoutSha: commits[0]!.id,
    message: null,
    commits,
    totalCommitsCount: commits.length,
  });
}

/**
 * `POST /projects/:id/hooks/:hook_id/test/:trigger`: sends the trigger's sample to the hook now, even a disabled one
 * (a success re-enables it), and logs it. Resolves when the receiver answered 2xx; otherwise refuses with 422 and the
 * receiver's answer (or why there was none), as GitLab.
 */
export async function testHook(ctx: Ctx, projectReference: string, hookId: number, trigger: TestTrigger): Promise<void> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  await checkEndpointLimit(ctx, "webHookTestsPerHookAndUser", `hook:${hook.id}`);
  const hookName = hookNames[trigger];
  const data = hookName ? await sampleData(ctx, view, actor, trigger) : null;
  if (!hookName || data === null) throw new UnprocessableError(missing[trigger]);
  const execution = await executeHook(ctx.db, hook, { trigger: hookName, data, idempotencyKey: randomUUID(), eventUuid: randomUUID() }, () => new Date());
  const success = typeof execution.status === "number" && execution.status >= 200 && execution.status < 300;
  if (!success) throw new UnprocessableError(execution.errorMessage ?? execution.responseBody);
}
