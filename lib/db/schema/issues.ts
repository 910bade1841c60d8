import { boolean, date, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, instant, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

export const milestones = pgTable(
  "milestones",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    iid: integer("iid").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    state: text("state", { enum: ["active", "closed"] }).notNull().default("active"),
    dueDate: date("due_date", { mode: "string" }),
    startDate: date("start_date", { mode: "string" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("milestones_project_iid_key").on(table.projectId, table.iid),
    uniqueIndex("milestones_project_title_key").on(table.projectId, table.title),
  ],
);

export const issueTypes = ["issue", "incident"] as const;

export const issues = pgTable(
  "issues",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    iid: integer("iid").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    state: text("state", { enum: ["opened", "closed"] }).notNull().default("opened"),
    issueType: text("issue_type", { enum: issueTypes }).notNull().default("issue"),
    confidential: boolean("confidential").notNull().default(false),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
    closedAt: instant("closed_at"),
    closedById: integer("closed_by_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("issues_project_iid_key").on(table.projectId, table.iid),
    index("issues_project_state_idx").on(table.projectId, table.state, table.id),
  ],
);

export const notes = pgTable(
  "notes",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    issueId: integer("issue_id")
      .notNull()
      .references(() => issues.id, { onDelete: "cascade" }),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    body: text("body").notNull(),
    system: boolean("system").notNull().default(false),
    internal: boolean("internal").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("notes_issue_idx").on(table.issueId, table.id)],
);

export type MilestoneRow = typeof milestones.$inferSelect;
export type IssueRow = typeof issues.$inferSelect;
export type NoteRow = typeof notes.$inferSelect;
