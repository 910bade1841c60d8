import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/**
 * Per-project counters for the numbers people see (#iid of alerts, issues): the row is locked while a number is
 * taken, so numbers are never handed out twice.
 */
export const internalIds = pgTable(
  "internal_ids",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    usage: text("usage", { enum: ["alerts", "issues", "milestones"] }).notNull(),
    lastValue: integer("last_value").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.usage] })],
);
