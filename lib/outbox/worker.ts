import "server-only";
import { performance } from "node:perf_hooks";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { requestMsSoFar } from "@/lib/http/request-load.mjs";
import { logger } from "@/lib/log";
import { leaseMessages, outboxChannel, type LeasedMessage, type LeaseRuns } from "./outbox";

/**
 * What a sender does with one leased message. It must itself complete or reschedule the message (`completeMessage`,
 * `rescheduleMessage`), in the same transaction as whatever it records about the attempt; a handler that throws
 * leaves the message leased, and it is handed out again when the lease runs out.
 */
export type OutboxHandler = (handle: DatabaseHandle, message: LeasedMessage) => Promise<void>;

/**
 * A sender that takes a run of messages at once (`LeaseRuns`): consecutive messages of one ordering key, oldest first,
 * up to `runLength` (the longest of the worker's run senders', when it has several). For each it must complete,
 * reschedule or hand it back (`releaseMessages`: the run stopped before it), as a handler does for its one message;
 * what it leaves leased is handed out again when the lease runs out.
 */
export interface OutboxRunSender {
  runLength: number;
  sendRun(handle: DatabaseHandle, run: LeasedMessage[]): Promise<void>;
}

export type OutboxSender = OutboxHandler | OutboxRunSender;

export interface OutboxWorkerOptions {
  handlers: Record<string, OutboxSender>;
  /** How long a worker holds a message: longer than any send may take, so a live worker never loses its lease. */
  leaseMs: number;
  /** How many messages one process sends at once. */
  concurrency: number;
  /** How often an idle worker looks for due messages (retries coming due, leases running out, missed notifications). */
  pollMs: number;
  /** A clock for tests; by default the database's. */
  now?: () => Date;
  /**
   * Requests come first. The server is busy while, since the worker last looked, its event loop has been busier than
   * `utilization` (0–1) or it has been answering `requestsInFlight` requests at once on average (a server that waits
   * on its database has a quiet event loop and a queue of requests). While busy, the worker waits before leasing
   * more, in steps of `stepMs`; past `maxWaitMs` it leases one run at a time, so a saturated server spends its time
   * answering and still sends a little, and sends the backlog once it has room.
   */
  yieldWhenBusy?: { utilization: number; requestsInFlight: number; stepMs: number; maxWaitMs: number };
  /** Request·milliseconds answered so far (`requestMsSoFar`); the production server's count by default. */
  requestMs?: () => number;
}

/**
 * Sends the outbox's messages from this process: leases due messages, hands each to its topic's handler, and leases
 * more as handlers finish. It wakes when a committed enqueue notifies (`outboxChannel`) and otherwise every `pollMs`.
 * Every process runs one; the leases keep them from sending the same message at once.
 */
export class OutboxWorker {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private pumping = false;
  private pumpAgain = false;
  private lastUtilization = performance.eventLoopUtilization();
  private lastLook = { at: performance.now(), requestMs: 0 };

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly options: OutboxWorkerOptions,
  ) {}

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.handle.listen(outboxChannel, {
      notify: () => this.wake(),
      listening: () => this.wake(),
      interrupted: () => {},
    });
    this.schedulePoll();
    this.wake();
  }

  /** Stops leasing and waits for the sends under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running.size > 0 || this.pumping) await Promise.race([...this.running, delay(10)]);
  }

  /** Leases and sends until nothing is due, then waits: resolves once this round found nothing more to do. */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((error: unknown) => logger.error({ err: error }, "outbox worker failed to lease messages"))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.wake();
        }
      });
  }

  /** Resolves when no message is being sent and none is due (for tests and for draining before a stop). */
  async idle(): Promise<void> {
    for (;;) {
      while (this.pumping || this.running.size > 0) await Promise.race([...this.running, delay(5)]);
      this.pumpAgain = false;
      this.pumping = true;
      try {
        await this.pump();
      } finally {
        this.pumping = false;
      }
      if (this.running.size === 0) return;
    }
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wake();
      this.schedulePoll();
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    const topics = Object.keys(this.options.handlers);
    const runs = leaseRunsOf(this.options.handlers);
    while (!this.stopped) {
      const room = this.options.concurrency - this.running.size;
      if (room <= 0) {
        await Promise.race(this.running);
        continue;
      }
      const busy = await this.yieldToRequests();
      const limit = busy ? 1 : room;
      const leased = await leaseMessages(this.handle.db, { topics, limit, leaseMs: this.options.leaseMs, now: this.options.now?.(), runs });
      if (leased.length === 0) return;
      for (const run of runsByKey(leased)) this.track(this.send(run));
    }
  }

  /** Waits while the server is busy (see `yieldWhenBusy`); answers whether it still is when the wait ends. */
  private async yieldToRequests(): Promise<boolean> {
    const limits = this.options.yieldWhenBusy;
    if (!limits) return false;
    const deadline = performance.now() + limits.maxWaitMs;
    for (;;) {
      if (!this.busySinceLastLook(limits) || this.stopped) return false;
      if (performance.now() >= deadline) return true;
      await delay(limits.stepMs);
    }
  }

  private busySinceLastLook(limits: NonNullable<OutboxWorkerOptions["yieldWhenBusy"]>): boolean {
    const loop = performance.eventLoopUtilization(this.lastUtilization);
    this.lastUtilization = performance.eventLoopUtilization();
    const look = { at: performance.now(), requestMs: (this.options.requestMs ?? requestMsSoFar)() };
    const averageInFlight = (look.requestMs - this.lastLook.requestMs) / Math.max(1, look.at - this.lastLook.at);
    this.lastLook = look;
    return loop.utilization >= limits.utilization || averageInFlight >= limits.requestsInFlight;
  }

  private track(sending: Promise<void>): void {
    this.running.add(sending);
    void sending.finally(() => {
      this.running.delete(sending);
      // A finished message may have freed the next one of its ordering key.
      this.wake();
    });
  }

  /** One message, or a run sender's run (one key's messages, oldest first). */
  private async send(run: LeasedMessage[]): Promise<void> {
    const [head] = run;
    const sender = head && this.options.handlers[head.topic];
    if (!sender) return;
    try {
      if (typeof sender === "function") await sender(this.handle, head);
      else await sender.sendRun(this.handle, run);
    } catch (error) {
      logger.error({ err: error, outboxMessageId: head.id, topic: head.topic, runLength: run.length }, "outbox message failed; it is retried when its lease ends");
    }
  }
}

/** The topics whose senders take runs, and the longest run any of them takes; none when every sender takes one message. */
function leaseRunsOf(senders: Record<string, OutboxSender>): LeaseRuns | undefined {
  const runSenders = Object.entries(senders).filter((entry): entry is [string, OutboxRunSender] => typeof entry[1] !== "function");
  if (runSenders.length === 0) return undefined;
  return { topics: runSenders.map(([topic]) => topic), length: Math.max(...runSenders.map(([, sender]) => sender.runLength)) };
}

/** Leased messages by ordering key, each key's in order: a head alone, or a head and its run. */
function runsByKey(leased: LeasedMessage[]): LeasedMessage[][] {
  const byKey = new Map<string, LeasedMessage[]>();
  for (const message of leased) {
    const run = byKey.get(message.orderingKey);
    if (run) run.push(message);
    else byKey.set(message.orderingKey, [message]);
  }
  return [...byKey.values()];
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
