import { eq, sum } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { projectEventCounts } from "@/lib/db/schema";

/** A project's maintained event count, all audiences, actions and target types together. */
export async function maintainedEventCount(db: Executor, projectId: number): Promise<number> {
  const [row] = await db.select({ total: sum(projectEventCounts.eventCount).mapWith(Number) }).from(projectEventCounts).where(eq(projectEventCounts.projectId, projectId));
  return row?.total ?? 0;
}
