import "server-only";
import { sql, type SQL, type SQLChunk } from "drizzle-orm";
import type { Executor } from "./drivers";
import { internalIds } from "./schema";

type Usage = "alerts" | "issues" | "milestones";

/**
 * The counter upsert that hands out per-project numbers, as SQL: a statement that needs the number together with the
 * row it numbers embeds it as a CTE (`onlyIf` skips it, taking no number). Returns `last_value`.
 */
export function takeInternalIdSql(projectId: SQLChunk, usage: SQLChunk, onlyIf?: SQL): SQL {
  return sql`insert into ${internalIds} (project_id, usage, last_value)
      select ${projectId}, ${usage}, 1${onlyIf ? sql` where ${onlyIf}` : sql``}
      on conflict (project_id, usage) do update set last_value = ${internalIds}.last_value + 1
      returning last_value`;
}

/** The name of `internalIdCte`'s CTE, whose one column `last_value` is the number taken. */
const internalIdCteName = "taken_internal_id";

/**
 * The next per-project number (#iid) for `usage`, as a CTE of the statement that inserts the row it numbers
 * (`db.with(cte).insert(…)`, the number being `internalIdTaken`); two statements never get the same one. Inside a
 * transaction the counter row stays locked until it ends (numbers without gaps, one writer at a time). It is locked
 * by the statement that writes the numbered row, not one round trip before it, so a project's next number waits a
 * round trip less for each one handed out.
 */
export function internalIdCte(db: Executor, projectId: number, usage: Usage) {
  return db.$with(internalIdCteName, { lastValue: sql<number>`last_value` }).as(takeInternalIdSql(sql`${projectId}`, sql`${usage}`));
}

/** The number `internalIdCte` took, as a value of the statement it is a CTE of. */
export const internalIdTaken: SQL<number> = sql`(select last_value from ${sql.identifier(internalIdCteName)})`;
