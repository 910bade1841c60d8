import "server-only";
import { and, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database, Executor } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { groupMembers, projectMembers } from "@/lib/db/schema";
import { recordEvent } from "@/lib/events/record";
import { removedMemberHooks } from "@/lib/webhooks/events";
import { groupMembershipExpired, membershipExpired, utcDay } from "./access";

/** The same number on every replica: only one of them removes expired memberships at a time. */
const expiredMembershipsLockKey = 727_003;

/**
 * Runs `removeBatch` (a removal of at most `batchSize` memberships, answering how many went) in a transaction of its
 * own, again and again until a batch comes up short. Each batch takes only rows nobody holds (`for update skip
 * locked`): those another replica or request holds are left for the next run. Returns how many were removed.
 */
async function removeInBatches(db: Database, batchSize: number, removeBatch: (tx: Executor) => Promise<number>): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await db.transaction((tx) => removeBatch(tx));
    removed += batch;
    if (batch < batchSize) return removed;
  }
}

/**
 * At most `batchSize` rows of `table` that `expired` keeps and nobody holds, named by their `keys`: a batch's
 * condition. The outer test re-checks each row, so a membership renewed meanwhile stays.
 */
function unheldBatch(table: PgTable, keys: PgColumn[], expired: SQL, batchSize: number): SQL {
  const key = sql.join(keys, sql`, `);
  return and(expired, sql`(${key}) in (select ${key} from ${table} where ${expired} limit ${batchSize} for update skip locked)`)!;
}

/**
 * Removes every membership whose `expires_at` day has begun by `now` (UTC), a small batch per transaction, and records
 * GitLab's `expired` event for each, authored by the member, and the project's member hooks' deliveries, in the
 * transaction that removes it. Access already ended
 * with that day (see `membershipActive`); this clears the members list and tells the project's activity. Returns how
 * many memberships were removed.
 */
export async function removeExpiredMemberships(db: Database, now: Date, batchSize = 100): Promise<number> {
  const expired = membershipExpired(utcDay(now));
  return removeInBatches(db, batchSize, async (tx) => {
    const rows = await tx
      .delete(projectMembers)
      .where(unheldBatch(projectMembers, [projectMembers.projectId, projectMembers.userId], expired, batchSize))
      .returning();
    for (const row of rows) {
      await recordEvent(tx, { projectId: row.projectId, authorId: row.userId, action: "expired", createdAt: now });
      await removedMemberHooks(tx, { projectId: row.projectId, member: row, now });
    }
    return rows.length;
  });
}

/**
 * The same for group memberships: each expired one goes with the group's `expired` event, authored by the member.
 * Access through it, to the group and everything below, already ended with that day (`groupMembershipActive`).
 */
export async function removeExpiredGroupMemberships(db: Database, now: Date, batchSize = 100): Promise<number> {
  const expired = groupMembershipExpired(utcDay(now));
  return removeInBatches(db, batchSize, async (tx) => {
    const rows = await tx
      .delete(groupMembers)
      .where(unheldBatch(groupMembers, [groupMembers.groupId, groupMembers.userId], expired, batchSize))
      .returning({ groupId: groupMembers.groupId, userId: groupMembers.userId });
    for (const row of rows) await recordEvent(tx, { projectId: null, groupId: row.groupId, authorId: row.userId, action: "expired", createdAt: now });
    return rows.length;
  });
}

export interface ExpiredMembershipsRun {
  /** False when another process was already at it (PostgreSQL), so this one did nothing. */
  ran: boolean;
  removed: number;
}

/** One run of the job under its cross-replica lock: expired project memberships, then expired group memberships. */
export async function runMembershipExpiry(handle: DatabaseHandle, now: Date): Promise<ExpiredMembershipsRun> {
  const removed = await handle.runExclusive(
    expiredMembershipsLockKey,
    async () => (await removeExpiredMemberships(handle.db, now)) + (await removeExpiredGroupMemberships(handle.db, now)),
  );
  return { ran: removed !== undefined, removed: removed ?? 0 };
}
