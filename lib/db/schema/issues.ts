import { getTableColumns, sql } from "drizzle-orm";
import { boolean, date, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
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
    /**
     * The description as HTML, rendered when it was saved (GitLab's cached Markdown columns), and the renderer version
     * that made it; null until rendered (rows written before rendering was stored, incidents opened by alerts).
     */
    descriptionHtml: text("description_html"),
    cachedMarkdownVersion: integer("cached_markdown_version"),
    state: text("state", { enum: ["opened", "closed"] }).notNull().default("opened"),
    issueType: text("issue_type", { enum: issueTypes }).notNull().default("issue"),
    confidential: boolean("confidential").notNull().default(false),
    authorId: integer("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
    dueDate: date("due_date", { mode: "string" }),
    closedAt: instant("closed_at"),
    closedById: integer("closed_by_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("issues_project_iid_key").on(table.projectId, table.iid),
    index("issues_project_state_idx").on(table.projectId, table.state, table.id),
    // The issue lists' orders (newest or last updated first), within a project in every state or in one, and across
    // projects. The columns after the id let a page's ids be read from the index alone, visibility rules and all
    // (state, confidential, author), however deep the page.
    index("issues_project_created_idx").on(table.projectId, table.createdAt, table.id, table.state, table.confidential, table.authorId),
    index("issues_project_updated_idx").on(table.projectId, table.updatedAt, table.id, table.state, table.confidential, table.authorId),
    index("issues_project_state_created_idx").on(table.projectId, table.state, table.createdAt, table.id, table.confidential, table.authorId),
    index("issues_project_state_updated_idx").on(table.projectId, table.state, table.updatedAt, table.id, table.confidential, table.authorId),
    index("issues_created_idx").on(table.createdAt, table.id, table.projectId, table.state, table.confidential, table.authorId),
    index("issues_updated_idx").on(table.updatedAt, table.id, table.projectId, table.state, table.confidential, table.authorId),
    index("issues_author_idx").on(table.authorId, table.id),
    // A reader's own confidential issues, whose events they see in projects where their role shows no others.
    index("issues_confidential_author_idx").on(table.authorId, table.projectId, table.id).where(sql`${table.confidential}`),
    index("issues_milestone_idx").on(table.milestoneId, table.id, table.projectId, table.confidential, table.authorId),
    // Deleting a user clears who closed their issues, a batch at a time.
    index("issues_closed_by_idx").on(table.closedById).where(sql`${table.closedById} is not null`),
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
    /** The body as HTML and the renderer version that made it, as for issue descriptions; system notes have none. */
    noteHtml: text("note_html"),
    cachedMarkdownVersion: integer("cached_markdown_version"),
    system: boolean("system").notNull().default(false),
    internal: boolean("internal").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // An issue's notes in either order; the visibility columns after the id keep deep pages to the index.
    index("notes_issue_created_idx").on(table.issueId, table.createdAt, table.id, table.internal, table.system),
    index("notes_issue_updated_idx").on(table.issueId, table.updatedAt, table.id, table.internal, table.system),
    // A deleted user's notes, handed to the ghost user or deleted a batch at a time.
    index("notes_author_idx").on(table.authorId, table.id),
  ],
);

/**
 * How many comments each issue has (system notes aside), in notes for everyone and in internal notes, kept by triggers
 * on `notes` in the transaction of every change (drizzle/0016_issue_comment_counts.sql), so an issue's
 * `user_notes_count` is read, not counted, however long its discussion.
 */
export const issueCommentCounts = pgTable("issue_comment_counts", {
  issueId: integer("issue_id")
    .primaryKey()
    .references(() => issues.id, { onDelete: "cascade" }),
  comments: integer("comments").notNull().default(0),
  internalComments: integer("internal_comments").notNull().default(0),
});

/** A project's labels, created on the fly when an issue names one that does not exist yet (as GitLab does). */
export const labels = pgTable(
  "labels",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** `#RRGGBB`, as GitLab stores and shows it. */
    color: text("color").notNull(),
    description: text("description"),
    /**
     * How many issues carry the label, open and closed, in all and not confidential: kept by triggers on `issue_labels`
     * and `issues` (drizzle/0015_list_indexes_and_issue_counts.sql), so `with_counts` reads columns rather than counting each label's issues.
     */
    openIssuesCount: integer("open_issues_count").notNull().default(0),
    closedIssuesCount: integer("closed_issues_count").notNull().default(0),
    openNonConfidentialIssuesCount: integer("open_nonconfidential_issues_count").notNull().default(0),
    closedNonConfidentialIssuesCount: integer("closed_nonconfidential_issues_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex("labels_project_title_key").on(table.projectId, table.title)],
);

export const issueLabels = pgTable(
  "issue_labels",
  {
    issueId: integer("issue_id")
      .notNull()
      .references(() => issues.id, { onDelete: "cascade" }),
    labelId: integer("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.issueId, table.labelId] }), index("issue_labels_label_idx").on(table.labelId, table.issueId)],
);

export const issueAssignees = pgTable(
  "issue_assignees",
  {
    issueId: integer("issue_id")
      .notNull()
      .references(() => issues.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.issueId, table.userId] }), index("issue_assignees_user_idx").on(table.userId, table.issueId)],
);

export type MilestoneRow = typeof milestones.$inferSelect;
export type LabelRow = typeof labels.$inferSelect;
/**
 * The columns every read of an issue or a note selects: all but the rendered HTML, which can be as long as the text
 * and is read only by the page that shows it.
 */
const { descriptionHtml: _descriptionHtml, cachedMarkdownVersion: _issueMarkdownVersion, ...issueColumns } = getTableColumns(issues);
const { noteHtml: _noteHtml, cachedMarkdownVersion: _noteMarkdownVersion, ...noteColumns } = getTableColumns(notes);
export { issueColumns, noteColumns };

export type IssueRow = Omit<typeof issues.$inferSelect, "descriptionHtml" | "cachedMarkdownVersion">;
export type NoteRow = Omit<typeof notes.$inferSelect, "noteHtml" | "cachedMarkdownVersion">;
