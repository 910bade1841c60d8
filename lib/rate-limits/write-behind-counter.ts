import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/drivers";
import { rateLimits } from "@/lib/db/schema";
import { logger } from "@/lib/log";

/** How often a counter writes what it counted to the shared table, at most (and sooner when a key needs it). */
export const FLUSH_INTERVAL_MS = 250;

/**
 * How many of one key's requests a replica may let through before the table has acknowledged them: 2% of the limit
 * (at least 1). This is what bounds the overshoot of a set of replicas (see WriteBehindCounter).
 */
export function unacknowledgedAllowance(limit: number): number {
  return Math.max(1, Math.floor(limit / 50));
}

/** A request over the limit: the count it made, and when the key's window ends. */
export interface Refusal {
  observed: number;
  resetAt: Date;
}

/** What a replica knows of one key's current window. */
interface KeyWindow {
  /** The shared total the table last returned for the window (this replica's acknowledged requests included). */
  acknowledged: number;
  /** Counted here and not yet sent to the table. */
  pending: number;
  /** Sent in the flush under way. */
  inFlight: number;
  /** When the window ends (ms since the epoch); null until the table (or, failing it, this replica) has started it. */
  endsAt: number | null;
}

/**
 * A fixed-window counter shared by every replica through the `rate_limits` table without a write per request. Each
 * request is counted in memory; at most every FLUSH_INTERVAL_MS one statement adds every key's new requests to its row
 * (a multi-row upsert) and returns the shared totals. A request is refused when the last total the table returned plus
 * what this replica counted since is over the limit.
 *
 * The rows are rate-limiter-flexible's (RateLimiterDrizzle): key `<prefix>:<who>`, `points` counted in the window,
 * `expire` when it ends, and the same upsert, so a window that has ended restarts at the first write after it, as
 * with every request written. The first request of a window for a key on a replica waits for the table, so the
 * replica learns the window and the total so far.
 *
 * Overshoot: a replica never holds more than `allowance` (unacknowledgedAllowance) of a key's requests that the table
 * has not acknowledged; it waits for a flush first. Once the table's total reaches the limit, each replica's next
 * acknowledgement says so and it refuses from then on, so each lets at most `allowance` more through: with R replicas
 * at most limit + R × allowance − 1 requests pass in a window, and a single replica counts exactly. Requests counted
 * in the last moments of a window whose flush reaches the table after the window ended count in the next one.
 *
 * A flush that fails never fails a request: its counts stay pending for the next flush, keys the table has not
 * started get a window of their own, and until flushes succeed again the replica decides alone on what it counted
 * (as rate-limiter-flexible's insurance limiter does), without waiting for the table.
 */
export class WriteBehindCounter {
  private readonly windows = new Map<string, KeyWindow>();
  /** Keys with requests that the table has not seen yet. */
  private readonly dirty = new Set<string>();
  private readonly allowance: number;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private queuedFlush: Promise<void> | null = null;
  /** Since a flush failed and until one succeeds, this replica decides alone on what it counted. */
  private unreachable = false;
  private lastSweep = Date.now();

  constructor(
    private readonly db: Database,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly periodSeconds: number,
    private readonly flushIntervalMs: number = FLUSH_INTERVAL_MS,
  ) {
    this.allowance = unacknowledgedAllowance(limit);
  }

  /** Counts one request for `key`; returns null when it may pass, or the refusal. Never throws. */
  async consume(key: string): Promise<Refusal | null> {
    for (;;) {
      const now = Date.now();
      const window = this.current(key, now);
      // While the table is unreachable a new window starts here, without waiting for it.
      if (window.endsAt === null && this.unreachable) window.endsAt = now + this.periodSeconds * 1000;
      if (window.endsAt !== null) {
        const unacknowledged = window.pending + window.inFlight;
        const observed = window.acknowledged + unacknowledged + 1;
        if (observed > this.limit || unacknowledged < this.allowance || this.unreachable) {
          this.count(key, window);
          return observed > this.limit ? { observed, resetAt: new Date(window.endsAt) } : null;
        }
      }
      // A window not started yet, or too many requests the table has not acknowledged: ask it before deciding.
      this.dirty.add(key);
      await this.flushNow();
    }
  }

  /** Writes everything counted so far (and waits for the flush under way first). */
  async flush(): Promise<void> {
    await this.flushNow();
  }

  private current(key: string, now: number): KeyWindow {
    const window = this.windows.get(key);
    // The counts of a window that has ended belong to no window any more: they are dropped with it.
    if (window && (window.endsAt === null || now < window.endsAt)) return window;
    const fresh: KeyWindow = { acknowledged: 0, pending: 0, inFlight: 0, endsAt: null };
    this.windows.set(key, fresh);
    return fresh;
  }

  private count(key: string, window: KeyWindow): void {
    window.pending += 1;
    this.dirty.add(key);
    if (!this.timer && !this.flushing && !this.queuedFlush) {
      this.timer = setTimeout(() => void this.flushNow(), this.flushIntervalMs);
      // A pending flush must not keep a process (a test, a script) alive.
      this.timer.unref();
    }
  }

  /** Runs a flush right after the one under way (one queued flush serves every caller). */
  private flushNow(): Promise<void> {
    this.queuedFlush ??= (this.flushing ?? Promise.resolve()).then(() => {
      this.queuedFlush = null;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.flushing = this.write().finally(() => {
        this.flushing = null;
        if (this.dirty.size > 0 && !this.queuedFlush) {
          this.timer = setTimeout(() => void this.flushNow(), this.flushIntervalMs);
          this.timer.unref();
        }
      });
      return this.flushing;
    });
    return this.queuedFlush;
  }

  private async write(): Promise<void> {
    const now = Date.now();
    this.sweep(now);
    const batch: { key: string; window: KeyWindow; points: number }[] = [];
    // Sorted, so that replicas writing the same keys lock their rows in the same order (no deadlock).
    for (const key of [...this.dirty].sort()) {
      const window = this.windows.get(key);
      if (!window || (window.endsAt !== null && now >= window.endsAt)) continue;
      batch.push({ key, window, points: window.pending });
      window.inFlight += window.pending;
      window.pending = 0;
    }
    this.dirty.clear();
    if (batch.length === 0) return;

    const expire = new Date(now + this.periodSeconds * 1000);
    const ended = sql`${rateLimits.expire} <= ${sql.param(new Date(now), rateLimits.expire)}`;
    try {
      const rows = await this.db
        .insert(rateLimits)
        .values(batch.map(({ key, points }) => ({ key: `${this.keyPrefix}:${key}`, points, expire })))
        .onConflictDoUpdate({
          target: rateLimits.key,
          // rate-limiter-flexible's own update: a window that has ended starts again with these requests.
          set: {
            points: sql`CASE WHEN ${ended} THEN excluded.points ELSE ${rateLimits.points} + excluded.points END`,
            expire: sql`CASE WHEN ${ended} THEN excluded.expire ELSE ${rateLimits.expire} END`,
          },
        })
        .returning({ key: rateLimits.key, points: rateLimits.points, expire: rateLimits.expire });
      this.unreachable = false;
      const totals = new Map(rows.map((row) => [row.key, row]));
      for (const { key, window, points } of batch) {
        window.inFlight -= points;
        const row = totals.get(`${this.keyPrefix}:${key}`);
        if (!row) continue;
        window.acknowledged = row.points;
        window.endsAt = row.expire ? row.expire.getTime() : expire.getTime();
      }
    } catch (error) {
      this.unreachable = true;
      logger.warn({ err: error, throttle: this.keyPrefix }, "rate limit counts could not be written; counting locally");
      for (const { key, window, points } of batch) {
        window.inFlight -= points;
        window.pending += points;
        window.endsAt ??= expire.getTime();
        this.dirty.add(key);
      }
    }
  }

  /** Forgets the windows that have ended (at most every ten seconds), so memory follows the active keys. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (window.endsAt !== null && now >= window.endsAt && window.inFlight === 0) {
        this.windows.delete(key);
        this.dirty.delete(key);
      }
    }
  }
}
