import "server-only";
import { checkHeartbeats } from "@/lib/alerts/heartbeats";
import { pruneExpiredSilences, releaseHeldAlerts } from "@/lib/alerts/silences";
import { getDatabaseHandle } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { env } from "@/lib/env";
import { pruneExpiredEvents } from "@/lib/events/retention";
import { logger } from "@/lib/log";
import { runMembershipExpiry } from "@/lib/projects/expired-members";
import { removeUnauthorizedSelfRegisteredClients } from "@/lib/oauth/dynamic-registration";
import { pruneMessages } from "@/lib/outbox/outbox";
import { hookLogRetentionDays, pruneHookLogs } from "@/lib/webhooks/logs";

/**
 * The jobs of each tick. Those that must not run twice at once take their own cross-replica lock; removing unauthorized
 * self-registered clients needs none, since deleting what another replica deleted does nothing.
 */
const jobs: { name: string; run: (handle: DatabaseHandle, now: Date) => Promise<void> }[] = [
  {
    name: "pruning old events",
    run: async (handle, now) => {
      const result = await pruneExpiredEvents(handle, now);
      if (result.deleted > 0) logger.info(result, "old events pruned");
    },
  },
  {
    name: "removing self-registered OAuth clients nobody authorized",
    run: async (handle, now) => {
      const result = await removeUnauthorizedSelfRegisteredClients(handle.db, now);
      if (result.removed > 0) logger.info(result, "unauthorized self-registered OAuth clients removed");
    },
  },
  {
    name: "removing expired memberships",
    run: async (handle, now) => {
      const result = await runMembershipExpiry(handle, now);
      if (result.removed > 0) logger.info(result, "expired memberships removed");
    },
  },
  {
    name: "pruning expired alert silences",
    run: async ({ db }, now) => {
      const result = await pruneExpiredSilences(db, now);
      if (result.deleted > 0) logger.info(result, "expired alert silences pruned");
    },
  },
  {
    name: "pruning webhook logs and stale outbox messages",
    run: async (handle, now) => {
      const logs = await pruneHookLogs(handle.db, now);
      // A message still waiting after the logs' week was never going to be sent (retries end within the hour).
      const messages = await pruneMessages(handle.db, { before: new Date(now.getTime() - hookLogRetentionDays * 24 * 60 * 60 * 1000) });
      if (logs + messages > 0) logger.info({ logs, messages }, "old webhook logs and outbox messages pruned");
    },
  },
];

const globalForSchedule = globalThis as unknown as { housekeepingTimer?: NodeJS.Timeout; frequentTimers?: NodeJS.Timeout[] };

/**
 * The jobs that run every minute or less on every server, whatever the housekeeping interval (nothing else would ever
 * do them): what is due is in the database, each due row is claimed by one replica (`FOR UPDATE SKIP LOCKED`), so a
 * restart forgets nothing and replicas looking at once share the work. Each look is one index probe when nothing is
 * due.
 */
const frequentJobs: { name: string; everyMs: number; run: (handle: DatabaseHandle, now: Date) => Promise<void> }[] = [
  {
    // A heartbeat fires within this much of becoming overdue.
    name: "checking heartbeats",
    everyMs: 30_000,
    run: async ({ db }, now) => {
      const result = await checkHeartbeats(db, now);
      if (result.fired > 0) logger.info(result, "missed heartbeats alerted");
    },
  },
  {
    // A silence's window or a snooze that ends notifies within this much.
    name: "releasing held alert notifications",
    everyMs: 60_000,
    run: async ({ db }, now) => {
      const result = await releaseHeldAlerts(db, now);
      if (result.released.length > 0) logger.info({ released: result.released.length, held: result.held.length }, "held alert notifications released");
    },
  },
];

/** Starts each frequent job's timer; a run still going when the next is due is not doubled. */
function scheduleFrequentJobs(): void {
  if (globalForSchedule.frequentTimers) return;
  globalForSchedule.frequentTimers = frequentJobs.map((job) => {
    let running = false;
    const run = () => {
      if (running) return;
      running = true;
      void getDatabaseHandle()
        .then((handle) => job.run(handle, new Date()))
        .catch((error: unknown) => logger.error({ err: error }, `${job.name} failed`))
        .finally(() => {
          running = false;
        });
    };
    const timer = setInterval(run, job.everyMs);
    timer.unref();
    return timer;
  });
}

/**
 * Runs the housekeeping jobs shortly after start and then every `EVENTS_PRUNE_INTERVAL_MINUTES` (0 turns them off),
 * and the frequent jobs (`frequentJobs`) every minute or less whatever it says.
 * The timers never keep the process alive, and a failed job is logged and retried at the next tick without holding
 * up the others.
 */
export function scheduleHousekeeping(): void {
  scheduleFrequentJobs();
  const minutes = env.EVENTS_PRUNE_INTERVAL_MINUTES;
  if (minutes === 0 || globalForSchedule.housekeepingTimer) return;
  const tick = async () => {
    const handle = await getDatabaseHandle();
    for (const job of jobs) {
      try {
        await job.run(handle, new Date());
      } catch (error) {
        logger.error({ err: error }, `${job.name} failed`);
      }
    }
  };
  const run = () => void tick().catch((error: unknown) => logger.error({ err: error }, "housekeeping failed"));
  setTimeout(run, 60_000).unref();
  globalForSchedule.housekeepingTimer = setInterval(run, minutes * 60_000);
  globalForSchedule.housekeepingTimer.unref();
}
