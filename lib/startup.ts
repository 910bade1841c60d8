import "server-only";
import { alertEmailFanOut, alertEmailRecipientTopic, alertEmailSender, alertEmailTopic } from "@/lib/alerts/email";
import { startSilenceCache } from "@/lib/alerts/silence-cache";
import { getDatabaseHandle } from "@/lib/db";
import { env } from "@/lib/env";
import { scheduleHousekeeping } from "@/lib/housekeeping";
import { chatNotificationSender } from "@/lib/integrations/delivery";
import { chatNotificationTopic } from "@/lib/integrations/topic";
import { logger } from "@/lib/log";
import { OutboxWorker } from "@/lib/outbox/worker";
import { startTokenCheckCache } from "@/lib/token-checks/checks";
import { bootstrapRoot } from "@/lib/users/bootstrap";
import { userDeletionHandler, userDeletionTopic } from "@/lib/users/deletion";
import { hookTimeoutMs, webHookSender } from "@/lib/webhooks/delivery";
import { webHookEventTopic, webHookFanOut, webHookTopic } from "@/lib/webhooks/enqueue";

export async function startService(): Promise<void> {
  try {
    await prepare();
  } catch (error) {
    console.error("Start-up failed:", error);
    process.exit(1);
  }
}

async function prepare(): Promise<void> {
  const handle = await getDatabaseHandle();
  await handle.migrate();
  await startTokenCheckCache(handle);
  await startSilenceCache(handle);
  await bootstrapRoot(handle.db, new Date());
  logger.info(
    { database: handle.driver === "pglite" ? `embedded PGlite in ${env.DATA_DIR}` : "PostgreSQL" },
    "database ready",
  );
  console.log(`Sign in at ${env.EXTERNAL_URL}/users/sign_in`);
  scheduleHousekeeping();
  await startOutboxWorker();
}

const globalForOutbox = globalThis as unknown as { outboxWorker?: OutboxWorker };

/**
 * The end of a server process's life, once it answers no more requests: the sends under way finish and no new one
 * starts, then the database closes (the embedded one writes its files out as at a clean shutdown, so the next start
 * has nothing to recover).
 */
export async function stopService(): Promise<void> {
  await globalForOutbox.outboxWorker?.stop();
  await (await getDatabaseHandle()).close();
}

/**
 * This process's worker of the outbox: webhook deliveries, chat notifications, alert emails, and the deletions of
 * users (`DELETE /users/:id`). A lease outlasts a request's time limit several times over, and a deletion hands its
 * message back well within one, so only a process that died loses one; the poll picks up retries that come due and
 * leases that ran out.
 */
async function startOutboxWorker(): Promise<void> {
  if (globalForOutbox.outboxWorker) return;
  const worker = new OutboxWorker(await getDatabaseHandle(), {
    handlers: {
      [webHookEventTopic]: webHookFanOut(),
      [webHookTopic]: webHookSender(),
      [chatNotificationTopic]: chatNotificationSender(),
      [alertEmailTopic]: alertEmailFanOut(),
      [alertEmailRecipientTopic]: alertEmailSender(),
      [userDeletionTopic]: userDeletionHandler(),
    },
    leaseMs: 6 * hookTimeoutMs,
    // Sends mostly wait on receivers: enough of them that a few slow or dead receivers do not hold up the rest.
    concurrency: 32,
    pollMs: 5_000,
    // Four requests under way on average is a queue: an idle or merely busy server answers each in milliseconds.
    yieldWhenBusy: { utilization: 0.8, requestsInFlight: 4, stepMs: 20, maxWaitMs: 1_000 },
  });
  globalForOutbox.outboxWorker = worker;
  await worker.start();
}
