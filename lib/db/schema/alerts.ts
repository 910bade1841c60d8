import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";
import type { SilenceMatcher, WeeklyRecurrence } from "@/lib/alerts/silence-rules";
import { payloadFormatSettings, payloadFormats, type SubscriptionConfirmation } from "@/lib/alerts/formats/types";
import { createdAt, instant, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

export const integrationTypes = ["http", "prometheus", "heartbeat"] as const;

/** Where a project receives alerts. The key is kept as a digest (to check) and encrypted (to show Maintainers). */
export const alertIntegrations = pgTable(
  "alert_integrations",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: integrationTypes }).notNull(),
    active: boolean("active").notNull().default(false),
    endpointIdentifier: text("endpoint_identifier").notNull(),
    tokenDigest: text("token_digest").notNull(),
    tokenCiphertext: text("token_ciphertext").notNull(),
    /** The sample payload exactly as the Maintainer pasted it. */
    payloadExample: text("payload_example").notNull().default("{}"),
    payloadAttributeMapping: jsonb("payload_attribute_mapping").$type<PayloadAttributeMapping>().notNull().default({}),
    /** Requests per minute this integration accepts; null means no limit (the default). */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    /** The format payloads are read in: `auto` detects it from each payload. */
    payloadFormat: text("payload_format", { enum: payloadFormatSettings }).notNull().default("auto"),
    /** The format the latest payload was read in; written only when it changes. */
    lastPayloadFormat: text("last_payload_format", { enum: payloadFormats }),
    /** An SNS subscription waiting for a Maintainer to confirm it by hand; cleared by the topic's first notification. */
    snsSubscriptionConfirmation: jsonb("sns_subscription_confirmation").$type<SubscriptionConfirmation>(),
    /** A heartbeat's expected time between pings; set exactly on heartbeats (the check constraint). */
    heartbeatIntervalSeconds: integer("heartbeat_interval_seconds"),
    /** How long past its interval a heartbeat's ping may be late before it counts as missed. */
    heartbeatGraceSeconds: integer("heartbeat_grace_seconds"),
    lastPingAt: instant("last_ping_at"),
    /**
     * When an active heartbeat that has not missed is next overdue: the last ping (or its activation) plus interval and
     * grace. Null when nothing is awaited (inactive, not a heartbeat, or its missed alert is open until the next ping),
     * so the housekeeping's check reads only the rows that are due, through `alert_integrations_heartbeat_due_idx`.
     */
    nextDueAt: instant("next_due_at"),
    /** The heartbeat's "missed" alert was fired and no ping has resolved it since. */
    missedAlertOpen: boolean("missed_alert_open").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("alert_integrations_endpoint_key").on(table.projectId, table.endpointIdentifier),
    index("alert_integrations_heartbeat_due_idx").on(table.nextDueAt).where(sql`${table.active} and ${table.nextDueAt} is not null`),
    check(
      "alert_integrations_heartbeat_settings",
      sql`(${table.type} = 'heartbeat') = (${table.heartbeatIntervalSeconds} is not null and ${table.heartbeatGraceSeconds} is not null)`,
    ),
  ],
);

/**
 * A project's silence (a maintenance window): alerts its matchers match while it is active are recorded but open no
 * incident and notify nobody. Active once between `starts_at` and `ends_at`, or every week in the `recurrence`'s
 * windows (then both are null). The receiver reads a project's silences that have not ended by `(project_id, ends_at)`.
 */
export const alertSilences = pgTable(
  "alert_silences",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** All must match (`lib/alerts/silence-rules.ts`); a regex's `value` is kept as written, anchored when matched. */
    matchers: jsonb("matchers").$type<SilenceMatcher[]>().notNull(),
    /**
     * The `=` matchers on the alert's one-valued fields, as an object (`{"service": "db"}`): every alert the silence
     * matches contains it, so the receiver skips most silences with one cheap containment test before reading matchers.
     */
    equalities: jsonb("equalities").$type<Record<string, string>>().notNull().default({}),
    startsAt: instant("starts_at"),
    endsAt: instant("ends_at"),
    recurrence: jsonb("recurrence").$type<WeeklyRecurrence>(),
    reason: text("reason").notNull(),
    authorId: integer("author_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index("alert_silences_project_ends_idx").on(table.projectId, table.endsAt),
    // Housekeeping prunes one-off silences long expired (`pruneExpiredSilences`), oldest first, across projects.
    index("alert_silences_expired_idx").on(table.endsAt).where(sql`${table.endsAt} is not null`),
    // Deleting a user forgets the silence's author (set null), found through this.
    index("alert_silences_author_idx").on(table.authorId).where(sql`${table.authorId} is not null`),
    check(
      "alert_silences_window",
      sql`(${table.recurrence} is null and ${table.startsAt} is not null and ${table.endsAt} is not null and ${table.endsAt} > ${table.startsAt})
        or (${table.recurrence} is not null and ${table.startsAt} is null and ${table.endsAt} is null)`,
    ),
  ],
);

export const alerts = pgTable(
  "alerts",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    integrationId: integer("integration_id").references(() => alertIntegrations.id, { onDelete: "set null" }),
    iid: integer("iid").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    severity: text("severity", { enum: ["critical", "high", "medium", "low", "info", "unknown"] }).notNull(),
    status: text("status", { enum: ["triggered", "acknowledged", "resolved", "ignored"] }).notNull().default("triggered"),
    startedAt: instant("started_at").notNull(),
    endedAt: instant("ended_at"),
    monitoringTool: text("monitoring_tool"),
    service: text("service"),
    hosts: text("hosts").array().notNull().default(sql`'{}'::text[]`),
    environment: text("environment"),
    fingerprint: text("fingerprint"),
    eventCount: integer("event_count").notNull().default(1),
    payload: jsonb("payload").notNull(),
    /** The format the alert's payload was read in, which says how to read its links; null for alerts older than formats. */
    payloadFormat: text("payload_format", { enum: payloadFormats }),
    issueId: integer("issue_id"),
    /** The silence that matched the alert's latest firing, while it holds the alert's notifications back. */
    silencedById: integer("silenced_by_id").references((): AnyPgColumn => alertSilences.id, { onDelete: "set null" }),
    /** Until when someone snoozed the alert's notifications. */
    snoozedUntil: instant("snoozed_until"),
    /** Snoozed until the alert resolves (`snoozed_until` is then null). */
    snoozedUntilResolved: boolean("snoozed_until_resolved").notNull().default(false),
    /**
     * A notification held back by a silence or a snooze is owed from this time, when the alert is then still
     * triggered and no longer held: housekeeping looks again then (`releaseHeldAlerts`), so the state is here and not
     * in a timer.
     */
    notifyAfter: instant("notify_after"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("alerts_project_iid_key").on(table.projectId, table.iid),
    // At most one unresolved alert per fingerprint: repeats group into it, whatever the concurrency.
    uniqueIndex("alerts_open_fingerprint_key")
      .on(table.projectId, table.fingerprint)
      .where(sql`${table.status} <> 'resolved' and ${table.fingerprint} is not null`),
    index("alerts_project_started_idx").on(table.projectId, table.startedAt, table.id),
    index("alerts_project_status_idx").on(table.projectId, table.status, table.startedAt, table.id),
    // The list's `silenced=true` and `silenced=false` in order, each from its own alerts alone: those two indexes
    // would read past every alert of the project on the other side (a project that silences nearly everything would
    // read all of it to fill a page of the rest).
    index("alerts_project_silenced_started_idx").on(table.projectId, table.startedAt, table.id).where(sql`${table.silencedById} is not null`),
    index("alerts_project_silenced_status_idx").on(table.projectId, table.status, table.startedAt, table.id).where(sql`${table.silencedById} is not null`),
    index("alerts_project_unsilenced_started_idx").on(table.projectId, table.startedAt, table.id).where(sql`${table.silencedById} is null`),
    index("alerts_project_unsilenced_status_idx").on(table.projectId, table.status, table.startedAt, table.id).where(sql`${table.silencedById} is null`),
    // Housekeeping reads the held notifications that are due, and a silence's change or deletion its alerts.
    index("alerts_notify_after_idx").on(table.notifyAfter).where(sql`${table.notifyAfter} is not null`),
    index("alerts_silenced_by_idx").on(table.silencedById).where(sql`${table.silencedById} is not null`),
  ],
);

/** The alert's history: system notes ("logged an alert from …", "changed the status to …"). */
export const alertNotes = pgTable(
  "alert_notes",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    alertId: integer("alert_id")
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    authorId: integer("author_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull(),
    system: boolean("system").notNull().default(true),
    createdAt: createdAt(),
  },
  (table) => [
    index("alert_notes_alert_idx").on(table.alertId, table.id),
    // Deleting a user forgets the notes' author (set null), found through this.
    index("alert_notes_author_idx").on(table.authorId).where(sql`${table.authorId} is not null`),
  ],
);

/**
 * Who is assigned an alert (GitLab's `alert_management_alert_assignees`). The user index serves the list's
 * `assignee_username` filter, probed per alert of the project's range, and a deleted user's rows, removed a batch at a
 * time.
 */
export const alertAssignees = pgTable(
  "alert_assignees",
  {
    alertId: integer("alert_id")
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.alertId, table.userId] }), index("alert_assignees_user_idx").on(table.userId, table.alertId)],
);

/** A project's alert settings: incident creation and auto-close, and alert emails. */
export const projectAlertSettings = pgTable("project_alert_settings", {
  projectId: integer("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  createIncident: boolean("create_incident").notNull().default(false),
  autoCloseIncident: boolean("auto_close_incident").notNull().default(true),
  /** Email the project's Owners and Maintainers about new, recurring and resolved alerts (GitLab's `send_email`). */
  sendEmail: boolean("send_email").notNull().default(false),
  updatedAt: updatedAt(),
});

/**
 * The pace of an alert's emails: recurrences are not mailed one by one but counted here, and one email a minute at
 * most tells how many there were. A row exists once the alert has been mailed about or has recurred while its project
 * sends alert emails.
 */
export const alertEmailDigests = pgTable("alert_email_digests", {
  alertId: integer("alert_id")
    .primaryKey()
    .references(() => alerts.id, { onDelete: "cascade" }),
  /** Recurrences not yet told in an email. While above zero, one digest message waits in the outbox. */
  unmailedEvents: integer("unmailed_events").notNull().default(0),
  /** The earliest time the next digest may go out: a minute after the last email about the alert. */
  nextMailAt: instant("next_mail_at").notNull(),
});

export type AlertIntegrationRow = typeof alertIntegrations.$inferSelect;
export type AlertRow = typeof alerts.$inferSelect;
export type AlertNoteRow = typeof alertNotes.$inferSelect;
export type AlertSilenceRow = typeof alertSilences.$inferSelect;

/** Requests counted per integration per minute, for integrations with a rate limit (shared by all replicas). */
export const alertRateWindows = pgTable(
  "alert_rate_windows",
  {
    integrationId: integer("integration_id")
      .notNull()
      .references(() => alertIntegrations.id, { onDelete: "cascade" }),
    windowStart: instant("window_start").notNull(),
    requestCount: integer("request_count").notNull().default(0),
  },
  (table) => [uniqueIndex("alert_rate_windows_key").on(table.integrationId, table.windowStart)],
);
