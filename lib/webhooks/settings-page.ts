import "server-only";
import type { PageRequest } from "@/lib/api/pagination";
import type { Ctx } from "@/lib/context";
import type { ListPage } from "@/lib/db";
import type { WebHookLogRow } from "@/lib/db/schema";
import type { ProjectView } from "@/lib/projects/projects";
import type { HookForm } from "./form-schemas";
import { getHook, listHooks, projectForHooks, serializeHook, type HookAttributes } from "./hooks";
import { getHookLog, listHookLogs } from "./logs";

export type SerializedHook = Awaited<ReturnType<typeof serializeHook>>;

/** Settings › Webhooks (Maintainer+): the project's hooks as the API shows them. */
export async function getWebhooksPage(ctx: Ctx, projectReference: string): Promise<{ view: ProjectView; hooks: SerializedHook[] }> {
  const view = await projectForHooks(ctx, projectReference);
  const { items } = await listHooks(ctx, projectReference);
  return { view, hooks: await Promise.all(items.map((hook) => serializeHook(ctx, hook))) };
}

/** A hook's edit page: the hook, and a page of its requests of the past week. */
export async function getHookEditPage(
  ctx: Ctx,
  projectReference: string,
  hookId: number,
  page: PageRequest,
): Promise<{ view: ProjectView; hook: SerializedHook; hasToken: boolean; logs: ListPage<WebHookLogRow> }> {
  const found = await getHook(ctx, projectReference, hookId);
  const logs = await listHookLogs(ctx, projectReference, hookId, {}, page);
  return { view: found.view, hook: await serializeHook(ctx, found), hasToken: found.hook.tokenCiphertext !== null, logs };
}

/** One logged request of a hook. */
export async function getHookLogPage(ctx: Ctx, projectReference: string, hookId: number, logId: number) {
  const found = await getHook(ctx, projectReference, hookId);
  return { view: found.view, hook: await serializeHook(ctx, found), log: await getHookLog(ctx, projectReference, hookId, logId) };
}

/** The form's fields as the hooks API's attributes; a blank token keeps the one stored (editing) or sets none. */
export function hookAttributesFromForm(form: HookForm, { editing }: { editing: boolean }): HookAttributes & { url: string } {
  return {
    url: form.url,
    name: form.name || null,
    description: form.description || null,
    ...(form.token !== "" || !editing ? { token: form.token || null } : {}),
    push_events: form.pushEvents,
    branch_filter_strategy: form.branchFilterStrategy,
    push_events_branch_filter: form.pushEventsBranchFilter || null,
    tag_push_events: form.tagPushEvents,
    issues_events: form.issuesEvents,
    confidential_issues_events: form.confidentialIssuesEvents,
    note_events: form.noteEvents,
    confidential_note_events: form.confidentialNoteEvents,
    member_events: form.memberEvents,
    milestone_events: form.milestoneEvents,
    enable_ssl_verification: form.enableSslVerification,
  };
}

/** A hook as the edit form starts from it. */
export function hookFormOf(hook: SerializedHook): HookForm {
  return {
    url: hook.url,
    name: hook.name ?? "",
    description: hook.description ?? "",
    token: "",
    pushEvents: hook.push_events,
    branchFilterStrategy: hook.branch_filter_strategy,
    pushEventsBranchFilter: hook.push_events_branch_filter ?? "",
    tagPushEvents: hook.tag_push_events,
    issuesEvents: hook.issues_events,
    confidentialIssuesEvents: hook.confidential_issues_events,
    noteEvents: hook.note_events,
    confidentialNoteEvents: hook.confidential_note_events,
    memberEvents: hook.member_events,
    milestoneEvents: hook.milestone_events,
    enableSslVerification: hook.enable_ssl_verification,
  };
}
