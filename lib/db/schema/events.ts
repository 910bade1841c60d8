import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { issues } from "./issues";
import { projects } from "./projects";
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

export const events = pgTable(
  "events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id").references(() => projects.id, { onDelete: "cascade" }),
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
    // Action-specific detail kept with the event (push data, note snapshot) so reads need no joins into history.
    data: jsonb("data"),
    createdAt: createdAt(),
  },
  (table) => [
    index("events_project_created_id_idx").on(table.projectId, table.createdAt, table.id),
    index("events_author_created_id_idx").on(table.authorId, table.createdAt, table.id),
    index("events_created_id_idx").on(table.createdAt, table.id),
    // Deleting an issue deletes its events (and the foreign key's cascade looks them up) through this.
    index("events_issue_idx").on(table.issueId).where(sql`${table.issueId} is not null`),
  ],
);

export type EventRow = typeof events.$inferSelect;

/**
 * How many events each project has, kept in step by every write and by retention, so the first page of a project's
 * events can report `X-Total` without counting millions of rows.
 */
export const projectEventCounts = pgTable("project_event_counts", {
  projectId: integer("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  eventCount: bigint("event_count", { mode: "number" }).notNull().default(0),
});
