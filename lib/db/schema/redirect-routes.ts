import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { namespaces, projects } from "./projects";

/**
 * Paths a project or a namespace had before it was renamed (GitLab's `redirect_routes`): the old URL keeps leading to
 * it until something else takes the path. Each row names its project or its namespace, never both; a namespace's
 * rename also leaves a row for each of its projects' old full paths, as GitLab's does, so a project is found by any
 * path it once had in one lookup. A path is held by at most one row, whatever its case; none names a path a project or
 * namespace has now (whoever takes a path deletes the rows for it and below it).
 */
export const redirectRoutes = pgTable(
  "redirect_routes",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    /** `namespace` or `namespace/project`, as it was written. */
    path: text("path").notNull(),
    projectId: integer("project_id").references(() => projects.id, { onDelete: "cascade" }),
    namespaceId: integer("namespace_id").references(() => namespaces.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("redirect_routes_path_lower_key").on(sql`lower(${table.path})`),
    // A namespace taking a path clears the rows for it and for every project below it: those of its first segment.
    index("redirect_routes_namespace_path_idx").on(sql`lower(split_part(${table.path}, '/', 1))`),
    index("redirect_routes_project_idx").on(table.projectId).where(sql`${table.projectId} is not null`),
    index("redirect_routes_namespace_idx").on(table.namespaceId).where(sql`${table.namespaceId} is not null`),
    check("redirect_routes_one_source", sql`(${table.projectId} is null) <> (${table.namespaceId} is null)`),
  ],
);

export type RedirectRouteRow = typeof redirectRoutes.$inferSelect;
