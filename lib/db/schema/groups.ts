import { sql } from "drizzle-orm";
import { date, index, integer, pgTable, primaryKey } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { namespaces } from "./projects";
import { users } from "./users";

/**
 * Group memberships, as `project_members` for projects: a member of a group has at least their role in every subgroup
 * and project below it (lib/projects/access.ts), until the day their membership expires.
 */
export const groupMembers = pgTable(
  "group_members",
  {
    groupId: integer("group_id")
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessLevel: integer("access_level").notNull(),
    expiresAt: date("expires_at", { mode: "string" }),
    createdById: integer("created_by_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.groupId, table.userId] }),
    index("group_members_user_id_idx").on(table.userId, table.groupId),
    index("group_members_group_created_idx").on(table.groupId, table.createdAt, table.userId),
    index("group_members_expires_at_idx").on(table.expiresAt).where(sql`${table.expiresAt} is not null`),
    index("group_members_created_by_idx").on(table.createdById).where(sql`${table.createdById} is not null`),
  ],
);

export type GroupMemberRow = typeof groupMembers.$inferSelect;
