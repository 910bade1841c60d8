import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, instant, updatedAt } from "./columns";
import { projects } from "./projects";

export const branchFilterStrategies = ["wildcard", "regex", "all_branches"] as const;

/**
 * GitLab's triggers for events this service has none of (merge requests, pipelines, wikis…): kept as set, so clients
 * read back what they wrote, and never fired.
 */
export const dormantHookEvents = [
  "merge_requests_events",
  "repository_update_events",
  "job_events",
  "pipeline_events",
  "wiki_page_events",
  "deployment_events",
  "feature_flag_events",
  "releases_events",
  "emoji_events",
  "resource_access_token_events",
  "resource_deploy_token_events",
  "vulnerability_events",
] as const;
export type DormantHookEvent = (typeof dormantHookEvents)[number];

/**
 * A project's webhook. Its secret token and custom headers (which often carry credentials) are encrypted, since they
 * are sent with every delivery. `recent_failures` and `disabled_until` are GitLab's auto-disabling state.
 */
export const projectHooks = pgTable(
  "project_hooks",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    name: text("name"),
    description: text("description"),
    tokenCiphertext: text("token_ciphertext"),
    /** A JSON object of header names and values, encrypted. */
    customHeadersCiphertext: text("custom_headers_ciphertext"),
    customWebhookTemplate: text("custom_webhook_template"),
    pushEvents: boolean("push_events").notNull().default(true),
    pushEventsBranchFilter: text("push_events_branch_filter"),
    branchFilterStrategy: text("branch_filter_strategy", { enum: branchFilterStrategies }).notNull().default("wildcard"),
    tagPushEvents: boolean("tag_push_events").notNull().default(false),
    issuesEvents: boolean("issues_events").notNull().default(false),
    confidentialIssuesEvents: boolean("confidential_issues_events").notNull().default(false),
    noteEvents: boolean("note_events").notNull().default(false),
    confidentialNoteEvents: boolean("confidential_note_events").notNull().default(false),
    memberEvents: boolean("member_events").notNull().default(false),
    milestoneEvents: boolean("milestone_events").notNull().default(false),
    dormantEvents: jsonb("dormant_events").$type<Partial<Record<DormantHookEvent, boolean>>>().notNull().default({}),
    enableSslVerification: boolean("enable_ssl_verification").notNull().default(true),
    recentFailures: integer("recent_failures").notNull().default(0),
    disabledUntil: instant("disabled_until"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("project_hooks_project_idx").on(table.projectId, table.id)],
);

export type ProjectHookRow = typeof projectHooks.$inferSelect;

/** One request sent to a hook and what came back: GitLab's `web_hook_logs`, kept for a week. */
export const webHookLogs = pgTable(
  "web_hook_logs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    webHookId: integer("web_hook_id")
      .notNull()
      .references(() => projectHooks.id, { onDelete: "cascade" }),
    trigger: text("trigger").notNull(),
    url: text("url").notNull(),
    requestHeaders: jsonb("request_headers").$type<Record<string, string>>().notNull(),
    requestData: jsonb("request_data").notNull(),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>().notNull(),
    responseBody: text("response_body").notNull(),
    /** The HTTP status as text, or `internal error` when no response came. */
    responseStatus: text("response_status").notNull(),
    executionDuration: doublePrecision("execution_duration").notNull(),
    internalErrorMessage: text("internal_error_message"),
    createdAt: createdAt(),
  },
  (table) => [
    index("web_hook_logs_hook_idx").on(table.webHookId, table.createdAt, table.id),
    index("web_hook_logs_created_idx").on(table.createdAt),
  ],
);

export type WebHookLogRow = typeof webHookLogs.$inferSelect;
