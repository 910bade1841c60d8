import { sql } from "drizzle-orm";
import { boolean, check, date, foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { users } from "./users";

export const namespaceKinds = ["user", "group"] as const;
export type NamespaceKind = (typeof namespaceKinds)[number];

export const projectVisibilities = ["private", "internal", "public"] as const;
export type ProjectVisibility = (typeof projectVisibilities)[number];

/**
 * Projects live in namespaces, as in GitLab: every user owns one with their username as its path, and groups are
 * namespaces of their own, nested below a parent group or at the top. A trigger (drizzle/0026_groups.sql) keeps
 * `full_path` (the parents' paths and the namespace's own, `acme/platform`) and `traversal_ids` (GitLab's: the ids from
 * the root down to the namespace itself), so a namespace's ancestors are its own array and its descendants an index
 * range (`namespacesBelow`), never a recursive walk.
 */
export const namespaces = pgTable(
  "namespaces",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    path: text("path").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: namespaceKinds }).notNull().default("user"),
    /** A user namespace's user; null for groups. */
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "cascade" }),
    /** A subgroup's parent group; null at the top level and for user namespaces. */
    parentId: integer("parent_id"),
    /** Set by the database from the parent's on every insert and move; written by nothing else. */
    fullPath: text("full_path").notNull().default(""),
    /** The names from the root down (`Acme / Platform`, GitLab's `full_name`), kept by the database as `full_path` is. */
    fullName: text("full_name").notNull().default(""),
    traversalIds: integer("traversal_ids").array().notNull().default(sql`'{}'::integer[]`),
    description: text("description"),
    /** A group's visibility; user namespaces are public, as on GitLab. */
    visibility: text("visibility", { enum: projectVisibilities }).notNull().default("public"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Sibling paths are unique because full paths are, and a top-level group cannot take a username (nor the reverse).
    uniqueIndex("namespaces_full_path_lower_key").on(sql`lower(${table.fullPath})`),
    uniqueIndex("namespaces_owner_id_key").on(table.ownerId),
    // Descendants of a namespace are the range of arrays that start with its own (arrays compare element by element).
    index("namespaces_traversal_ids_idx").on(table.traversalIds),
    // "At or below any of these groups" (a user's memberships) is `traversal_ids && <their ids>`, read from here and
    // estimated from the array's statistics (`memberGroupIdArray`).
    index("namespaces_traversal_ids_gin").using("gin", table.traversalIds),
    index("namespaces_parent_name_idx").on(table.parentId, table.name, table.id).where(sql`${table.parentId} is not null`),
    // Group lists read each visibility level in the list's order and merge them, as project lists do.
    index("namespaces_group_visibility_name_idx").on(table.visibility, table.name, table.id).where(sql`${table.kind} = 'group'`),
    index("namespaces_group_visibility_path_idx").on(table.visibility, table.path, table.id).where(sql`${table.kind} = 'group'`),
    index("namespaces_group_visibility_id_idx").on(table.visibility, table.id).where(sql`${table.kind} = 'group'`),
    foreignKey({ columns: [table.parentId], foreignColumns: [table.id], name: "namespaces_parent_id_fk" }),
    check("namespaces_kind_owner", sql`(${table.kind} = 'user') = (${table.ownerId} is not null)`),
    check("namespaces_user_top_level", sql`${table.kind} = 'group' or ${table.parentId} is null`),
  ],
);

export const projects = pgTable(
  "projects",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    namespaceId: integer("namespace_id")
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
    creatorId: integer("creator_id").references(() => users.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    path: text("path").notNull(),
    description: text("description"),
    visibility: text("visibility", { enum: projectVisibilities }).notNull().default("private"),
    /** The repository's default branch: the first branch pushed, or one chosen since; null before any push. */
    defaultBranch: text("default_branch"),
    /** Archived projects are read-only and left out of lists unless asked for (GitLab's `archived`). */
    archived: boolean("archived").notNull().default(false),
    /** Whether the project has an issue tracker (GitLab's `issues_enabled`). */
    issuesEnabled: boolean("issues_enabled").notNull().default(true),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /**
     * Open issues, and open issues that are not confidential: kept by triggers on `issues` in the transaction of every
     * change (drizzle/0015_list_indexes_and_issue_counts.sql), so the project entity's `open_issues_count` is a column, not a count per request.
     */
    openIssuesCount: integer("open_issues_count").notNull().default(0),
    openNonConfidentialIssuesCount: integer("open_nonconfidential_issues_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("projects_namespace_path_lower_key").on(table.namespaceId, sql`lower(${table.path})`),
    // The project lists read each visibility level in the list's order and merge them (lib/projects/projects.ts), so
    // every order has an index that starts with the visibility.
    index("projects_visibility_idx").on(table.visibility, table.id),
    index("projects_visibility_name_idx").on(table.visibility, table.name, table.id),
    index("projects_visibility_path_idx").on(table.visibility, table.path, table.id),
    index("projects_visibility_created_idx").on(table.visibility, table.createdAt, table.id),
    index("projects_visibility_updated_idx").on(table.visibility, table.updatedAt, table.id),
    index("projects_visibility_activity_idx").on(table.visibility, table.lastActivityAt, table.id),
    // Deleting a user forgets that they created projects (the column is set null), found through this.
    index("projects_creator_idx").on(table.creatorId).where(sql`${table.creatorId} is not null`),
  ],
);

export const accessLevels = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
export type AccessLevel = (typeof accessLevels)[keyof typeof accessLevels];

export const projectMembers = pgTable(
  "project_members",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessLevel: integer("access_level").notNull(),
    expiresAt: date("expires_at", { mode: "string" }),
    createdById: integer("created_by_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.userId] }),
    index("project_members_user_id_idx").on(table.userId, table.projectId),
    // The members list's order (oldest membership first).
    index("project_members_project_created_idx").on(table.projectId, table.createdAt, table.userId),
    // The daily job that removes expired memberships finds them through this.
    index("project_members_expires_at_idx").on(table.expiresAt).where(sql`${table.expiresAt} is not null`),
    // Deleting a user forgets the memberships they handed out (set null), found through this.
    index("project_members_created_by_idx").on(table.createdById).where(sql`${table.createdById} is not null`),
  ],
);

export type NamespaceRow = typeof namespaces.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type ProjectMemberRow = typeof projectMembers.$inferSelect;
