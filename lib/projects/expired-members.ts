import "server-only";
import { and, sql } from "drizzle-orm";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { projectMembers } from "@/lib/db/schema";
import { recordEvent } from "@/lib/events/record";
import { removedMemberHooks } from "@/lib/webhooks/events";
import { membershipExpired, utcDay } from "./access";

/** The same number on every replica: only one of them removes expired memberships at a time. */
const expiredMembershipsLockKey = 727_003;

/**
 * Removes every membership whose `expires_at` day has begun by `now` (UTC), a small batch per transaction, and records
 * GitLab's `expired` event for each, authored by the member, and the project's member hooks' deliveries, in the
 * transaction that removes it. Access already ended
 * with that day (see `membershipActive`); this clears the members list and tells the project's activity. Returns how
 * many memberships were removed.
 */
export async function removeExpiredMemberships(db: Database, now: Date, batchSize = 100): Promise<number> {
  const expired = membershipExpired(utcDay(now));
  let removed = 0;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      // Rows another replica or request holds are left for the next run; the outer condition re-checks each row, so
      // a membership renewed meanwhile stays.
      const rows = await tx
        .delete(projectMembers)
        .where(
          and(
            expired,
            sql`(${projectMembers.projectId}, ${projectMembers.userId}) in (select ${projectMembers.projectId}, ${projectMembers.userId}
              from ${projectMembers} where ${expired} limit ${batchSize} for update skip locked)`,
          ),
        )
        .returning();
      for (const row of rows) {
        await recordEvent(tx, { projectId: row.projectId, authorId: row.userId, action: "expired", createdAt: now });
        await removedMemberHooks(tx, { projectId: row.projectId, member: row, now });
      }
      return rows.length;
    });
    removed += batch;
    if (batch < batchSize) return removed;
  }
}

export interface ExpiredMembershipsRun {
  /** False when another process was already at it (PostgreSQL), so this one did nothing. */
  ran: boolean;
  removed: number;
}

/** One run of the job under its cross-replica lock. */
export async function runMembershipExpiry(handle: DatabaseHandle, now: Date): Promise<ExpiredMembershipsRun> {
  const removed = await handle.runExclusive(expiredMembershipsLockKey, () => removeExpiredMemberships(handle.db, now));
  return { ran: removed !== undefined, removed: removed ?? 0 };
}
