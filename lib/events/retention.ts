import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { inArray, lt } from "drizzle-orm";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import { actingUser, type Ctx } from "@/lib/context";
import { getDatabaseHandle, type Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { events } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError, UnauthorizedError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { deleteEvents } from "./record";

/** The same number on every replica: only one of them prunes at a time. */
const pruneLockKey = 727_002;

export interface PruneOptions {
  /** Rows per DELETE: small, so each statement is short and never holds many row locks. */
  batchSize?: number;
  /** Pause between batches, leaving room for the requests that read and write events meanwhile. */
  pauseMs?: number;
}

export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000);
}

/**
 * Deletes every event created before `cutoff`, one small batch per statement (through the `(created_at, id)` index),
 * until none is left. Returns how many were deleted.
 */
export async function pruneEventsBefore(db: Database, cutoff: Date, options: PruneOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  const pauseMs = options.pauseMs ?? 50;
  let deleted = 0;
  for (;;) {
    const batch = db.select({ id: events.id }).from(events).where(lt(events.createdAt, cutoff)).limit(batchSize);
    const removed = await db.transaction((tx) => deleteEvents(tx, inArray(events.id, batch)));
    deleted += removed;
    if (removed < batchSize) return deleted;
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

export const pruneRunEntity = entity(
  "EventPruneRun",
  "What pruning the events now did: nothing (`ran: false`) when another process was already pruning",
  z.strictObject({ ran: z.boolean(), deleted: z.number().int(), cutoff: z.string() }),
);

export interface PruneRun {
  /** False when another process was already pruning (PostgreSQL), so this one did nothing. */
  ran: boolean;
  deleted: number;
  cutoff: string;
}

/** One pruning run under the cross-replica lock: events older than the retention period (2 years by default) go. */
export async function pruneExpiredEvents(handle: DatabaseHandle, now: Date, options: PruneOptions = {}): Promise<PruneRun> {
  const cutoff = retentionCutoff(now, env.EVENTS_RETENTION_DAYS);
  const deleted = await handle.runExclusive(pruneLockKey, () => pruneEventsBefore(handle.db, cutoff, options));
  return { ran: deleted !== undefined, deleted: deleted ?? 0, cutoff: cutoff.toISOString() };
}

/** `POST /api/v4/admin/events/prune`: an administrator runs the pruning now (what `npm run events:prune` calls). */
export async function pruneEventsNow(ctx: Ctx): Promise<PruneRun> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (!user.isAdmin) throw new ForbiddenError();
  const run = await pruneExpiredEvents(await getDatabaseHandle(), ctx.now);
  logger.info({ ...run, userId: user.id }, "events pruned on request");
  return run;
}
