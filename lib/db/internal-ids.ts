import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "./drivers";
import { internalIds } from "./schema";

/**
 * The next per-project number (#iid) for `usage`; two calls never get the same one. Inside a transaction the counter
 * row stays locked until it ends (numbers without gaps, one writer at a time); outside one, only for the statement.
 */
export async function nextInternalId(tx: Executor, projectId: number, usage: "alerts" | "issues" | "milestones"): Promise<number> {
  const [counter] = await tx
    .insert(internalIds)
    .values({ projectId, usage, lastValue: 1 })
    .onConflictDoUpdate({ target: [internalIds.projectId, internalIds.usage], set: { lastValue: sql`${internalIds.lastValue} + 1` } })
    .returning({ lastValue: internalIds.lastValue });
  if (!counter) throw new Error("internal id counter returned no row");
  return counter.lastValue;
}
