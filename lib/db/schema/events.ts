import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { issues } from "./issues";
import { namespaces, projects } from "./projects";
import { users } from "./users";

export const eventActions = [
  "created",
  "updated",
  "closed",
  "reopened",
  "pushed",
  "commented",
  "merged",
  "joined",
  "left",
  "destroyed",
  "expired",
  "approved",
] as const;
export type EventAction = (typeof eventActions)[number];

export const eventTargetTypes = ["Issue", "Milestone", "MergeRequest", "Note", "Project", "Snippet", "User"] as const;
export type EventTargetType = (typeof eventTargetTypes)[number];

/**
 * Who, among those who see an event's project, may see the event, from the widest audience to the narrowest; a trigger
 * sets it from the event (and the issue it is about) when the event is written, and again when the issue's
 * confidentiality changes, so lists can find an audience's events through an index instead of deciding row by row.
 */
export const eventAudiences = {
  /** Everyone who sees the project (or, for a group's own event, the group). */
  everyone: 0,
  /** Those who may read the project's code: pushes. */
  codeReaders: 1,
  /** Those who may read confidential issues, and the issue's author: events about a confidential issue. */
  confidentialIssue: 2,
  /** Those who may read internal notes: comments in internal notes. */
  internalNote: 3,
} as const;
export type EventAudience = (typeof eventAudiences)[keyof typeof eventAudiences];

export const events = pgTable(
  "events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id").references(() => projects.id, { onDelete: "cascade" }),
    /**
     * A group's own event (created, a member joining or leaving): shown on the group's activity, never by the Events
     * API, which lists project events only. An event belongs to a project, to a group, or to neither.
     */
    groupId: integer("group_id").references(() => namespaces.id, { onDelete: "cascade" }),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    action: text("action", { enum: eventActions }).notNull(),
    targetType: text("target_type", { enum: eventTargetTypes }),
    targetId: integer("target_id"),
    targetIid: integer("target_iid"),
    targetTitle: text("target_title"),
    /** The issue an Issue or Note event is about: its confidentiality decides who sees the event. */
    issueId: integer("issue_id").references(() => issues.id, { onDelete: "cascade" }),
    /** A comment event about an internal note: only Reporters and above (and admins) may see it, like the note. */
    internal: boolean("internal").notNull().default(false),
    /** An `eventAudiences` value, kept by the database (drizzle/0014_event_audiences.sql); never written by the service. */
    audience: smallint("audience").notNull().default(eventAudiences.everyone),
    // Action-specific detail kept with the event (push data, note snapshot) so reads need no joins into history.
    data: jsonb("data"),
    createdAt: createdAt(),
  },
  (table) => [
    index("events_project_created_id_idx").on(table.projectId, table.createdAt, table.id),
    // A project's events in order for those who may not see all of them: anonymous visitors, non-members and guests see
    // the first (no pushes of a private project's code), or the second where the code is theirs to read.
    index("events_project_everyone_idx")
      .on(table.projectId, table.createdAt, table.id)
      .where(sql`${table.audience} = ${sql.raw(String(eventAudiences.everyone))}`),
    index("events_project_code_readers_idx")
      .on(table.projectId, table.createdAt, table.id)
      .where(sql`${table.audience} <= ${sql.raw(String(eventAudiences.codeReaders))}`),
    index("events_author_created_id_idx").on(table.authorId, table.createdAt, table.id),
    index("events_created_id_idx").on(table.createdAt, table.id),
    // Deleting an issue deletes its events (and the foreign key's cascade looks them up) through this; a reader's own
    // confidential issues' events are found through it too, by audience and author, reading those issues' events only.
    index("events_issue_idx").on(table.issueId, table.audience, table.authorId).where(sql`${table.issueId} is not null`),
    // A group's own events in order (its activity page), and what deleting the group cascades through.
    index("events_group_created_id_idx").on(table.groupId, table.createdAt, table.id).where(sql`${table.groupId} is not null`),
    check("events_project_or_group", sql`${table.projectId} is null or ${table.groupId} is null`),
  ],
);

export type EventRow = typeof events.$inferSelect;

/**
 * How many events each project has, by audience, action and target type (`''` for none), kept in step with `events` by
 * triggers (drizzle/0014_event_audiences.sql) in the transaction of every write, so a page of a project's events, or of
 * the projects someone belongs to, can tell each reader their exact total (filtered by action and target type too)
 * without counting rows.
 */
export const projectEventCounts = pgTable(
  "project_event_counts",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    audience: smallint("audience").notNull(),
    action: text("action", { enum: eventActions }).notNull(),
    targetType: text("target_type").notNull(),
    eventCount: bigint("event_count", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ name: "project_event_counts_pk", columns: [table.projectId, table.audience, table.action, table.targetType] })],
);

/**
 * How many events each author has in each project, by audience, action and target type, kept in step like
 * `projectEventCounts`, so an author's page can tell each reader their exact total from the few projects the author
 * acted in, instead of counting the author's events.
 */
export const authorEventCounts = pgTable(
  "author_event_counts",
  {
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    audience: smallint("audience").notNull(),
    action: text("action", { enum: eventActions }).notNull(),
    targetType: text("target_type").notNull(),
    eventCount: bigint("event_count", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ name: "author_event_counts_pk", columns: [table.authorId, table.projectId, table.audience, table.action, table.targetType] })],
);
