import { boolean, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { projects } from "./projects";

/** GitLab's chat notification integrations, by the names GitLab stores them under (`Integration#to_param`). */
export const chatIntegrationTypes = ["slack", "mattermost", "discord", "microsoft_teams", "hangouts_chat"] as const;
export type ChatIntegrationType = (typeof chatIntegrationTypes)[number];

/**
 * GitLab's triggers for events this service has none of (merge requests, pipelines, wikis, deployments): kept as set,
 * so clients read back what they wrote, and never fired.
 */
export const dormantIntegrationEvents = ["merge_requests_events", "pipeline_events", "wiki_page_events", "deployment_events"] as const;
export type DormantIntegrationEvent = (typeof dormantIntegrationEvents)[number];

/** The settings GitLab keeps in an integration's `properties`, apart from the webhook. */
export const chatPropertyNames = [
  "username",
  "channel",
  "notify_only_broken_pipelines",
  "notify_only_when_pipeline_status_changes",
  "branches_to_be_notified",
  "labels_to_be_notified",
  "labels_to_be_notified_behavior",
  "push_channel",
  "issue_channel",
  "confidential_issue_channel",
  "merge_request_channel",
  "note_channel",
  "confidential_note_channel",
  "tag_push_channel",
  "pipeline_channel",
  "wiki_page_channel",
  "deployment_channel",
  "incident_channel",
  "alert_channel",
] as const;
export type ChatPropertyName = (typeof chatPropertyNames)[number];
export type ChatProperties = Partial<Record<ChatPropertyName, string | boolean | null>>;

/**
 * A project's chat integration, one per project and type. The webhook URL is a credential (whoever has it posts to
 * the channel), so it is encrypted; the other settings are GitLab's `properties`. An integration turned off keeps its
 * row, inactive, as GitLab's does.
 */
export const projectIntegrations = pgTable(
  "project_integrations",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    type: text("type", { enum: chatIntegrationTypes }).notNull(),
    active: boolean("active").notNull().default(false),
    webhookCiphertext: text("webhook_ciphertext"),
    pushEvents: boolean("push_events").notNull().default(true),
    tagPushEvents: boolean("tag_push_events").notNull().default(true),
    issuesEvents: boolean("issues_events").notNull().default(true),
    confidentialIssuesEvents: boolean("confidential_issues_events").notNull().default(true),
    noteEvents: boolean("note_events").notNull().default(true),
    confidentialNoteEvents: boolean("confidential_note_events").notNull().default(true),
    incidentEvents: boolean("incident_events").notNull().default(false),
    alertEvents: boolean("alert_events").notNull().default(true),
    dormantEvents: jsonb("dormant_events").$type<Partial<Record<DormantIntegrationEvent, boolean>>>().notNull().default({}),
    properties: jsonb("properties").$type<ChatProperties>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex("project_integrations_project_type_key").on(table.projectId, table.type)],
);

export type ProjectIntegrationRow = typeof projectIntegrations.$inferSelect;
