import "server-only";
import { sql, type SQL, type SQLChunk } from "drizzle-orm";
import type { Database, Executor } from "./drivers";
import { placeholder, preparedStatement } from "./prepared";
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

const takeInternalId = preparedStatement<{ last_value: number }>(() => takeInternalIdSql(placeholder("projectId"), placeholder("usage")));

/**
 * The next per-project number (#iid) for `usage`; two calls never get the same one. Inside a transaction the counter
 * row stays locked until it ends (numbers without gaps, one writer at a time); outside one, only for the statement.
 */
export async function nextInternalId(tx: Executor, projectId: number, usage: Usage): Promise<number> {
  const [counter] = await takeInternalId(tx, { projectId, usage });
  if (!counter) throw new Error("internal id counter returned no row");
  return counter.last_value;
}

/**
 * The next per-project number for `usage`, taken in a short transaction of its own, before the caller's transaction
 * that writes the numbered row. A counter taken inside that transaction stays locked until its COMMIT has reached the
 * disk, so a project's creations queue one flush at a time (about 400 a second whatever the hardware, fewer on a
 * slow disk); this one is committed without waiting for the flush (`synchronous_commit = off`), so it is locked for
 * one round trip. That costs nothing in durability: the caller's own COMMIT flushes the write-ahead log up to itself,
 * this earlier commit included, so a numbered row never outlives a crash that its number did not. A creation that
 * fails after this leaves its number unused (a gap), as GitLab's alerts and deleted issues do.
 */
export async function reserveInternalId(db: Database, projectId: number, usage: Usage): Promise<number> {
  return db.transaction(async (tx) => {
    // Both sent at once: the SET costs no round trip of its own.
    const [, iid] = await Promise.all([tx.execute(sql`set local synchronous_commit = off`), nextInternalId(tx, projectId, usage)]);
    return iid;
  });
}
