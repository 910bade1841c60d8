import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "./drivers";
import { internalIds } from "./schema";

/**
 * The next per-project number (#iid) for `usage`. Call it inside the transaction that inserts the record: the
 * counter row stays locked until that transaction ends, so two records never get the same number.
 */
export async function nextInternalId(tx: Executor, projectId: number, usage: "issues" | "milestones"): Promise<number> {
  const [counter] = await tx
    .insert(internalIds)
    .values({ projectId, usage, lastValue: 1 })
    .onConflictDoUpdate({ target: [internalIds.projectId, internalIds.usage], set: { lastValue: sql`${internalIds.lastValue} + 1` } })
    .returning({ lastValue: internalIds.lastValue });
  if (!counter) throw new Error("internal id counter returned no row");
  return counter.lastValue;
}
