import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import type { PageRequest } from "@/lib/api/pagination";
import type { Ctx } from "@/lib/context";
import { decryptSecret, encryptSecret } from "@/lib/crypto";
import { listPage, type Database, type ListPage } from "@/lib/db";
import { branchFilterStrategies, dormantHookEvents, projectHooks, type DormantHookEvent, type ProjectHookRow } from "@/lib/db/schema";
import { NotFoundError, UnprocessableError, ValidationError } from "@/lib/errors";
import { getEncryptionKey } from "@/lib/instance-secrets";
import { literalUrlProblem } from "@/lib/http/outbound";
import { localRequestsAllowedFromWebHooks } from "@/lib/instance/settings";
import { discardMessagesOf } from "@/lib/outbox/outbox";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import { alertStatus } from "./auto-disabling";
import { hookOrderingKey } from "./enqueue";


export type BranchFilterStrategy = (typeof branchFilterStrategies)[number];

export interface CustomHeader {
  key: string;
  value: string;
}

/** A hook's settings as GitLab's API names them; what is left out stays as it is (a new hook: GitLab's default). */
export interface HookAttributes extends Partial<Record<DormantHookEvent, boolean>> {
  url?: string;
  name?: string | null;
  description?: string | null;
  /** Write-only. Empty clears it. */
  token?: string | null;
  push_events?: boolean;
  push_events_branch_filter?: string | null;
  branch_filter_strategy?: BranchFilterStrategy;
  tag_push_events?: boolean;
  issues_events?: boolean;
  confidential_issues_events?: boolean;
  note_events?: boolean;
  confidential_note_events?: boolean;
  member_events?: boolean;
  milestone_events?: boolean;
  enable_ssl_verification?: boolean;
  custom_webhook_template?: string | null;
  custom_headers?: CustomHeader[];
}

export interface HookView {
  view: ProjectView;
  hook: ProjectHookRow;
}

/** GitLab's limits on a hook's texts (`WebHook` validations). */
export const hookLimits = { url: 5000, name: 255, description: 2048, token: 5000, template: 4096, customHeaders: 20, headerName: 255, headerValue: 2048 };

/** RFC 9110 token characters: what a header name may hold. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The hook API needs Maintainer (GitLab's `admin_project`): 404 for a project the caller cannot see, 403 below it. */
export function projectForHooks(ctx: Ctx, projectReference: string): Promise<ProjectView> {
  return getProjectWithAbility(ctx, projectReference, "manageWebhooks");
}

/**
 * The URL a hook may have: `sendOutbound`'s rules (http or https, no credentials, which every Maintainer would see)
 * within GitLab's length, and not a local address unless the instance allows the local network ("Allow requests to
 * the local network from webhooks and integrations"). A name is not resolved here: every delivery checks the address
 * it connects to.
 */
async function checkUrl(db: Database, url: string): Promise<string> {
  const trimmed = url.trim();
  if (trimmed === "" || trimmed.length > hookLimits.url || literalUrlProblem(trimmed, await localRequestsAllowedFromWebHooks(db)) !== null) {
    throw new UnprocessableError("Invalid url given");
  }
  return trimmed;
}

/** A regex filter must compile in the database, which matches branches against it. */
async function checkBranchFilter(db: Database, strategy: BranchFilterStrategy, filter: string | null): Promise<void> {
  if (filter === null || filter === "") return;
  const invalid = new UnprocessableError("Invalid branch filter given");
  if (filter.length > 4000) throw invalid;
  if (strategy === "regex") {
    try {
      await db.execute(sql`select '' ~ ${filter}`);
    } catch {
      throw invalid;
    }
  }
}

function checkTexts(attributes: HookAttributes): void {
  const errors: Record<string, string[]> = {};
  const tooLong = (name: keyof typeof hookLimits, value: string | null | undefined) => {
    if (value && value.length > hookLimits[name]) errors[name] = [`is too long (maximum is ${hookLimits[name]} characters)`];
  };
  tooLong("name", attributes.name);
  tooLong("description", attributes.description);
  tooLong("token", attributes.token);
  if (attributes.token && /[\r\n]/.test(attributes.token)) errors.token = ["must not contain line breaks"];
  if (attributes.custom_webhook_template && attributes.custom_webhook_template.length > hookLimits.template) {
    errors.custom_webhook_template = [`is too long (maximum is ${hookLimits.template} characters)`];
  }
  const headers = attributes.custom_headers ?? [];
  if (headers.length > hookLimits.customHeaders) errors.custom_headers = [`must have at most ${hookLimits.customHeaders} headers`];
  for (const header of headers) {
    if (!headerName.test(header.key) || header.key.length > hookLimits.headerName) errors.custom_headers = ["must have valid header names"];
    else if (/[\r\n\0]/.test(header.value) || header.value.length > hookLimits.headerValue) errors.custom_headers = ["must have valid header values"];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function dormantEventsOf(attributes: HookAttributes, current: ProjectHookRow["dormantEvents"]): ProjectHookRow["dormantEvents"] {
  const merged = { ...current };
  for (const name of dormantHookEvents) if (attributes[name] !== undefined) merged[name] = attributes[name];
  return merged;
}

async function sealedHeaders(db: Database, headers: CustomHeader[]): Promise<string | null> {
  if (headers.length === 0) return null;
  return encryptSecret(JSON.stringify(Object.fromEntries(headers.map((header) => [header.key, header.value]))), await getEncryptionKey(db));
}

/** A hook's custom headers, decrypted: names and values. */
export async function customHeadersOf(db: Database, hook: Pick<ProjectHookRow, "customHeadersCiphertext">): Promise<Record<string, string>> {
  if (!hook.customHeadersCiphertext) return {};
  return JSON.parse(decryptSecret(hook.customHeadersCiphertext, await getEncryptionKey(db))) as Record<string, string>;
}

/** A hook's secret token, decrypted, or null. */
export async function tokenOf(db: Database, hook: Pick<ProjectHookRow, "tokenCiphertext">): Promise<string | null> {
  if (!hook.tokenCiphertext) return null;
  return decryptSecret(hook.tokenCiphertext, await getEncryptionKey(db));
}

/** `POST /projects/:id/hooks`. */
export async function createHook(ctx: Ctx, projectReference: string, attributes: HookAttributes & { url: string }): Promise<HookView> {
  const view = await projectForHooks(ctx, projectReference);
  const url = await checkUrl(ctx.db, attributes.url);
  checkTexts(attributes);
  const strategy = attributes.branch_filter_strategy ?? "wildcard";
  const filter = strategy === "all_branches" ? null : (attributes.push_events_branch_filter ?? null);
  await checkBranchFilter(ctx.db, strategy, filter);
  const key = await getEncryptionKey(ctx.db);
  const [hook] = await ctx.db
    .insert(projectHooks)
    .values({
      projectId: view.project.id,
      url,
      name: attributes.name ?? null,
      description: attributes.description ?? null,
      tokenCiphertext: attributes.token ? encryptSecret(attributes.token, key) : null,
      customHeadersCiphertext: await sealedHeaders(ctx.db, attributes.custom_headers ?? []),
      customWebhookTemplate: attributes.custom_webhook_template || null,
      pushEvents: attributes.push_events ?? true,
      pushEventsBranchFilter: filter,
      branchFilterStrategy: strategy,
      tagPushEvents: attributes.tag_push_events ?? false,
      issuesEvents: attributes.issues_events ?? false,
      confidentialIssuesEvents: attributes.confidential_issues_events ?? false,
      noteEvents: attributes.note_events ?? false,
      confidentialNoteEvents: attributes.confidential_note_events ?? false,
      memberEvents: attributes.member_events ?? false,
      milestoneEvents: attributes.milestone_events ?? false,
      dormantEvents: dormantEventsOf(attributes, {}),
      enableSslVerification: attributes.enable_ssl_verification ?? true,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning();
  if (!hook) throw new Error("insert into project_hooks returned no row");
  return { view, hook };
}

/** A project's hooks, oldest first: a page of them (the API), or all (the settings page). */
export async function listHooks(ctx: Ctx, projectReference: string, page?: PageRequest): Promise<ListPage<HookView>> {
  const view = await projectForHooks(ctx, projectReference);
  const inProject = eq(projectHooks.projectId, view.project.id);
  const rows = ctx.db.select().from(projectHooks).where(inProject).orderBy(asc(projectHooks.id)).$dynamic();
  const list = page
    ? await listPage(ctx.db, page, rows, ctx.db.select({ one: sql`1` }).from(projectHooks).where(inProject).$dynamic())
    : await rows.then((all) => ({ items: all, total: all.length, hasNext: false }));
  return { ...list, items: list.items.map((hook) => ({ view, hook })) };
}

export async function findHook(ctx: Pick<Ctx, "db">, view: ProjectView, hookId: number): Promise<ProjectHookRow> {
  const [hook] = await ctx.db
    .select()
    .from(projectHooks)
    .where(and(eq(projectHooks.projectId, view.project.id), eq(projectHooks.id, hookId)));
  if (!hook) throw new NotFoundError();
  return hook;
}

/** `GET /projects/:id/hooks/:hook_id`. */
export async function getHook(ctx: Ctx, projectReference: string, hookId: number): Promise<HookView> {
  const view = await projectForHooks(ctx, projectReference);
  return { view, hook: await findHook(ctx, view, hookId) };
}

/**
 * `PUT /projects/:id/hooks/:hook_id`. A new URL drops the secret token and the custom headers unless new ones come
 * with it, as GitLab does, so credentials meant for one receiver never go to another.
 */
export async function updateHook(ctx: Ctx, projectReference: string, hookId: number, attributes: HookAttributes): Promise<HookView> {
  const view = await projectForHooks(ctx, projectReference);
  const current = await findHook(ctx, view, hookId);
  const url = attributes.url === undefined ? current.url : await checkUrl(ctx.db, attributes.url);
  checkTexts(attributes);
  const strategy = attributes.branch_filter_strategy ?? current.branchFilterStrategy;
  const filter =
    strategy === "all_branches"
      ? null
      : attributes.push_events_branch_filter === undefined
        ? current.pushEventsBranchFilter
        : attributes.push_events_branch_filter;
  await checkBranchFilter(ctx.db, strategy, filter);
  const urlChanged = url !== current.url;
  const key = await getEncryptionKey(ctx.db);
  const tokenCiphertext =
    attributes.token !== undefined
      ? attributes.token
        ? encryptSecret(attributes.token, key)
        : null
      : urlChanged
        ? null
        : current.tokenCiphertext;
  const customHeadersCiphertext =
    attributes.custom_headers !== undefined
      ? await sealedHeaders(ctx.db, attributes.custom_headers)
      : urlChanged
        ? null
        : current.customHeadersCiphertext;
  const [hook] = await ctx.db
    .update(projectHooks)
    .set({
      url,
      name: attributes.name === undefined ? current.name : attributes.name,
      description: attributes.description === undefined ? current.description : attributes.description,
      tokenCiphertext,
      customHeadersCiphertext,
      customWebhookTemplate: attributes.custom_webhook_template === undefined ? current.customWebhookTemplate : attributes.custom_webhook_template || null,
      pushEvents: attributes.push_events ?? current.pushEvents,
      pushEventsBranchFilter: filter,
      branchFilterStrategy: strategy,
      tagPushEvents: attributes.tag_push_events ?? current.tagPushEvents,
      issuesEvents: attributes.issues_events ?? current.issuesEvents,
      confidentialIssuesEvents: attributes.confidential_issues_events ?? current.confidentialIssuesEvents,
      noteEvents: attributes.note_events ?? current.noteEvents,
      confidentialNoteEvents: attributes.confidential_note_events ?? current.confidentialNoteEvents,
      memberEvents: attributes.member_events ?? current.memberEvents,
      milestoneEvents: attributes.milestone_events ?? current.milestoneEvents,
      dormantEvents: dormantEventsOf(attributes, current.dormantEvents),
      enableSslVerification: attributes.enable_ssl_verification ?? current.enableSslVerification,
      updatedAt: ctx.now,
    })
    .where(eq(projectHooks.id, current.id))
    .returning();
  if (!hook) throw new NotFoundError();
  return { view, hook };
}

/** `DELETE /projects/:id/hooks/:hook_id`: the hook, its logs and its deliveries still waiting. */
export async function deleteHook(ctx: Ctx, projectReference: string, hookId: number): Promise<void> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  await ctx.db.transaction(async (tx) => {
    await discardMessagesOf(tx, hookOrderingKey(hook.id));
    await tx.delete(projectHooks).where(eq(projectHooks.id, hook.id));
  });
}

/** `PUT /projects/:id/hooks/:hook_id/custom_headers/:key`. */
export async function setCustomHeader(ctx: Ctx, projectReference: string, hookId: number, header: CustomHeader): Promise<void> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  const headers = { ...(await customHeadersOf(ctx.db, hook)), [header.key]: header.value };
  const list = Object.entries(headers).map(([key, value]) => ({ key, value }));
  try {
    checkTexts({ custom_headers: list });
  } catch {
    throw new UnprocessableError("Illegal key or value");
  }
  await ctx.db.update(projectHooks).set({ customHeadersCiphertext: await sealedHeaders(ctx.db, list), updatedAt: ctx.now }).where(eq(projectHooks.id, hook.id));
}

/** `DELETE /projects/:id/hooks/:hook_id/custom_headers/:key`. */
export async function deleteCustomHeader(ctx: Ctx, projectReference: string, hookId: number, key: string): Promise<void> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  const headers = await customHeadersOf(ctx.db, hook);
  if (!Object.hasOwn(headers, key)) throw new NotFoundError("Custom header");
  delete headers[key];
  const list = Object.entries(headers).map(([name, value]) => ({ key: name, value }));
  await ctx.db.update(projectHooks).set({ customHeadersCiphertext: await sealedHeaders(ctx.db, list), updatedAt: ctx.now }).where(eq(projectHooks.id, hook.id));
}

/**
 * GitLab's ProjectHook entity. The token is never shown; custom headers show their names only; URL variables are
 * not supported, so there are none.
 */
export const projectHookEntity = entity(
  "ProjectHook",
  "A project's webhook; its token is never shown, its custom headers by name only",
  z.strictObject({
    id: z.number().int(),
    url: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    created_at: isoDateTime,
    push_events: z.boolean(),
    tag_push_events: z.boolean(),
    merge_requests_events: z.boolean(),
    repository_update_events: z.boolean(),
    enable_ssl_verification: z.boolean(),
    alert_status: z.enum(["executable", "temporarily_disabled", "disabled"]),
    disabled_until: isoDateTime.nullable(),
    url_variables: z.array(z.strictObject({ key: z.string() })),
    push_events_branch_filter: z.string().nullable(),
    branch_filter_strategy: z.enum(branchFilterStrategies),
    custom_webhook_template: z.string().nullable(),
    custom_headers: z.array(z.strictObject({ key: z.string() })),
    project_id: z.number().int(),
    issues_events: z.boolean(),
    confidential_issues_events: z.boolean(),
    note_events: z.boolean(),
    confidential_note_events: z.boolean(),
    pipeline_events: z.boolean(),
    wiki_page_events: z.boolean(),
    deployment_events: z.boolean(),
    feature_flag_events: z.boolean(),
    job_events: z.boolean(),
    releases_events: z.boolean(),
    milestone_events: z.boolean(),
    emoji_events: z.boolean(),
    resource_access_token_events: z.boolean(),
    resource_deploy_token_events: z.boolean(),
    vulnerability_events: z.boolean(),
    member_events: z.boolean(),
  }),
);

export async function serializeHook(ctx: Ctx, { hook }: HookView): Promise<z.infer<typeof projectHookEntity>> {
  const dormant = (name: DormantHookEvent) => hook.dormantEvents[name] ?? false;
  return {
    id: hook.id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    created_at: hook.createdAt.toISOString(),
    push_events: hook.pushEvents,
    tag_push_events: hook.tagPushEvents,
    merge_requests_events: dormant("merge_requests_events"),
    repository_update_events: dormant("repository_update_events"),
    enable_ssl_verification: hook.enableSslVerification,
    alert_status: alertStatus(hook, ctx.now),
    disabled_until: hook.disabledUntil?.toISOString() ?? null,
    url_variables: [] as { key: string }[],
    push_events_branch_filter: hook.pushEventsBranchFilter,
    branch_filter_strategy: hook.branchFilterStrategy,
    custom_webhook_template: hook.customWebhookTemplate,
    custom_headers: Object.keys(await customHeadersOf(ctx.db, hook)).map((key) => ({ key })),
    project_id: hook.projectId,
    issues_events: hook.issuesEvents,
    confidential_issues_events: hook.confidentialIssuesEvents,
    note_events: hook.noteEvents,
    confidential_note_events: hook.confidentialNoteEvents,
    pipeline_events: dormant("pipeline_events"),
    wiki_page_events: dormant("wiki_page_events"),
    deployment_events: dormant("deployment_events"),
    feature_flag_events: dormant("feature_flag_events"),
    job_events: dormant("job_events"),
    releases_events: dormant("releases_events"),
    milestone_events: hook.milestoneEvents,
    emoji_events: dormant("emoji_events"),
    resource_access_token_events: dormant("resource_access_token_events"),
    resource_deploy_token_events: dormant("resource_deploy_token_events"),
    vulnerability_events: dormant("vulnerability_events"),
    member_events: hook.memberEvents,
  };
}
