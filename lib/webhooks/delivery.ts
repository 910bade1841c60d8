import "server-only";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { projectHooks, webHookLogs, type ProjectHookRow } from "@/lib/db/schema";
import { statementRows } from "@/lib/db/statement-rows";
import { OutboundSession, sendOutbound } from "@/lib/http/outbound";
import { compatibleGitlabVersion } from "@/lib/instance/metadata";
import { localRequestsAllowedFromWebHooks } from "@/lib/instance/settings";
import {
  completeMessage,
  completeMessages,
  completionCtes,
  growingRetryDelayMs,
  releaseMessages,
  rescheduleMessage,
  type LeasedMessage,
} from "@/lib/outbox/outbox";
import type { OutboxRunSender } from "@/lib/outbox/worker";
import { permanentlyDisabled, recordHookFailure, recordHookSuccess, temporarilyDisabled } from "./auto-disabling";
import type { HookDelivery } from "./enqueue";
import { customHeadersOf, tokenOf } from "./hooks";
import { instanceUrl } from "./payloads";
import { renderCustomTemplate } from "./template";
import { hookTriggers, isHookTrigger, type HookTrigger } from "./triggers";

/** GitLab's `webhook_timeout` default. */
export const hookTimeoutMs = 10_000;
/** What a log keeps of a response (GitLab's `RESPONSE_BODY_SIZE_LIMIT`, and its header limits). */
const responseBodyLimit = 8 * 1024;
const responseHeadersCountLimit = 50;
const responseHeaderSizeLimit = 1024;

/** The result of one request to a hook, as its log records it. */
export interface HookExecution {
  /** The HTTP status, or `internal error` when no response came. */
  status: number | "internal error";
  /** 2xx and 3xx count as success, as GitLab's `response_category`. */
  ok: boolean;
  responseBody: string;
  /** Why no response came (or the template failed). */
  errorMessage: string | null;
  logId: number;
}

function truncateBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= limit) return text;
  return bytes.subarray(0, limit).toString("utf8").replace(/\uFFFD$/, "");
}

/** The headers GitLab sends, its own over the hook's custom ones. */
function requestHeaders(
  hook: ProjectHookRow,
  trigger: HookTrigger,
  delivery: Pick<HookDelivery, "idempotencyKey" | "eventUuid">,
  token: string | null,
  customHeaders: Record<string, string>,
): { sent: Record<string, string>; logged: Record<string, string> } {
  const own: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": `GitLab/${compatibleGitlabVersion}`,
    "Idempotency-Key": delivery.idempotencyKey,
    "X-Gitlab-Event": hookTriggers[trigger].event,
    "X-Gitlab-Webhook-UUID": randomUUID(),
    "X-Gitlab-Instance": instanceUrl(),
    "X-Gitlab-Event-UUID": delivery.eventUuid,
  };
  if (token) own["X-Gitlab-Token"] = token.replace(/[\r\n]/g, "");
  // Header names are case-insensitive: a custom header spelled differently must not sit beside GitLab's own.
  const ownNames = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const custom = Object.fromEntries(Object.entries(customHeaders).filter(([name]) => !ownNames.has(name.toLowerCase())));
  const redacted = Object.fromEntries(Object.keys(custom).map((name) => [name, "[REDACTED]"]));
  return {
    sent: { ...custom, ...own },
    logged: { ...redacted, ...own, ...(token ? { "X-Gitlab-Token": "[REDACTED]" } : {}) },
  };
}

/** Response headers as a log keeps them: capitalized names, at most 50, each value at most 1 KiB. */
function loggedResponseHeaders(headers: Record<string, string>): Record<string, string> {
  const capitalized = (name: string) => name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
  return Object.fromEntries(
    Object.entries(headers)
      .slice(0, responseHeadersCountLimit)
      .map(([name, value]) => [capitalized(name), truncateBytes(value, responseHeaderSizeLimit)]),
  );
}

/** What sending to a hook needs besides the delivery: its secrets and the instance's setting, read once per run. */
interface HookTarget {
  hook: ProjectHookRow;
  token: string | null;
  customHeaders: Record<string, string>;
  allowLocalNetwork: boolean;
  /** Connections kept open from one delivery of a run to the next. */
  session?: OutboundSession;
}

async function hookTarget(db: Database, hook: ProjectHookRow, session?: OutboundSession): Promise<HookTarget> {
  const [token, customHeaders, allowLocalNetwork] = await Promise.all([tokenOf(db, hook), customHeadersOf(db, hook), localRequestsAllowedFromWebHooks(db)]);
  return { hook, token, customHeaders, allowLocalNetwork, session };
}

type NewWebHookLog = typeof webHookLogs.$inferInsert;

/** One request to a hook, and its log's row (`WebHookService#execute`), not yet written. */
interface HookAttempt {
  status: HookExecution["status"];
  ok: boolean;
  responseBody: string;
  errorMessage: string | null;
  log: NewWebHookLog;
}

/**
 * A delivery as a sender has it: its payload as an object (a test, a resend), or as the JSON text the outbox keeps
 * (`json`), which goes out and into the log as it is, so a delivery costs no parsing or serializing unless the hook's
 * custom template needs the object.
 */
type OutgoingDelivery = Pick<HookDelivery, "trigger" | "idempotencyKey" | "eventUuid"> & ({ data: unknown } | { json: string });

/** What goes out to the hook and what its log keeps as the request's data, or why the template could not be rendered. */
function requestPayload(hook: ProjectHookRow, delivery: OutgoingDelivery): { ok: true; body: string; logged: unknown } | { ok: false; error: string } {
  if (hook.customWebhookTemplate) {
    const rendered = renderCustomTemplate(hook.customWebhookTemplate, "json" in delivery ? JSON.parse(delivery.json) : delivery.data);
    return rendered.ok ? { ok: true, body: JSON.stringify(rendered.value), logged: rendered.value } : rendered;
  }
  if ("json" in delivery) return { ok: true, body: delivery.json, logged: sql`${delivery.json}::jsonb` };
  return { ok: true, body: JSON.stringify(delivery.data), logged: delivery.data };
}

/** Sends `delivery` to the hook once. Never throws for what the receiver does. */
async function attemptDelivery(target: HookTarget, delivery: OutgoingDelivery, now: () => Date): Promise<HookAttempt> {
  const { hook } = target;
  const headers = requestHeaders(hook, delivery.trigger, delivery, target.token, target.customHeaders);
  let requestData: unknown = {};
  let status: HookExecution["status"] = "internal error";
  let responseHeaders: Record<string, string> = {};
  let responseBody = "";
  let errorMessage: string | null = null;
  let durationMs = 0;
  const payload = requestPayload(hook, delivery);
  if (!payload.ok) {
    errorMessage = payload.error;
  } else {
    requestData = payload.logged;
    const result = await sendOutbound(
      {
        url: hook.url,
        method: "POST",
        headers: headers.sent,
        body: payload.body,
        timeoutMs: hookTimeoutMs,
        maxResponseBytes: responseBodyLimit,
        allowLocalNetwork: target.allowLocalNetwork,
        verifyTls: hook.enableSslVerification,
      },
      { session: target.session },
    );
    if (result.kind === "response") {
      status = result.status;
      responseHeaders = loggedResponseHeaders(result.headers);
      responseBody = truncateBytes(result.body, responseBodyLimit);
      durationMs = result.durationMs;
    } else {
      errorMessage = result.reason;
      durationMs = result.kind === "failed" ? result.durationMs : 0;
    }
  }
  return {
    status,
    ok: typeof status === "number" && status >= 200 && status < 400,
    responseBody,
    errorMessage,
    log: {
      webHookId: hook.id,
      trigger: delivery.trigger,
      url: hook.url,
      requestHeaders: headers.logged,
      requestData,
      responseHeaders,
      responseBody,
      responseStatus: String(status),
      executionDuration: durationMs / 1000,
      internalErrorMessage: errorMessage,
      createdAt: now(),
    },
  };
}

/**
 * Records successful attempts in one statement: their logs, the hook healthy again, and the outbox messages they
 * delivered (with any others of the run to drop) completed. Answers the logs' ids, in order.
 */
async function recordSuccesses(db: Database, hookId: number, logs: NewWebHookLog[], completed: Pick<LeasedMessage, "id" | "leaseToken">[]): Promise<number[]> {
  if (logs.length === 0) {
    await completeMessages(db, completed);
    return [];
  }
  const rows = statementRows<{ id: number }>(
    // The builders' own SQL, as the statement's parts (embedded as they are, they would be parenthesized subqueries).
    await db.execute(sql`with logged as (${db.insert(webHookLogs).values(logs).returning({ id: webHookLogs.id }).getSQL()}),
      healthy as (${recordHookSuccess(db, hookId).getSQL()})${completed.length > 0 ? sql`, ${completionCtes(completed)}` : sql``}
      select id from logged order by id`),
  );
  return rows.map((row) => Number(row.id));
}

/**
 * A failed attempt, in one transaction: its log, the failure counted toward the hook's auto-disabling, and `then`
 * (an outbox delivery's retry or abandonment).
 */
async function recordFailure(db: Database, attempt: HookAttempt, now: () => Date, then?: (tx: Executor) => Promise<void>): Promise<number> {
  return db.transaction(async (tx) => {
    const [logged] = await tx.insert(webHookLogs).values(attempt.log).returning({ id: webHookLogs.id });
    await recordHookFailure(tx, attempt.log.webHookId, now());
    await then?.(tx);
    return logged!.id;
  });
}

/**
 * Sends `data` to the hook once, now, and logs the request and what came back, counting the result toward the hook's
 * auto-disabling (a test or a resend from the hook's page; the outbox's deliveries go through `webHookSender`). Never
 * throws for what the receiver does.
 */
export async function executeHook(
  db: Database,
  hook: ProjectHookRow,
  delivery: Pick<HookDelivery, "trigger" | "data" | "idempotencyKey" | "eventUuid">,
  now: () => Date,
): Promise<HookExecution> {
  const attempt = await attemptDelivery(await hookTarget(db, hook), delivery, now);
  const logId = attempt.ok ? (await recordSuccesses(db, hook.id, [attempt.log], []))[0]! : await recordFailure(db, attempt, now);
  return { status: attempt.status, ok: attempt.ok, responseBody: attempt.responseBody, errorMessage: attempt.errorMessage, logId };
}

/** How many times a delivery is attempted before it is given up (GitLab's worker: the first try and 4 retries). */
export const maxDeliveryAttempts = 5;

/** The wait before attempt `attempts + 1`: 15 s, 1 min, 4 min, 16 min. */
export function retryDelayMs(attempts: number): number {
  return growingRetryDelayMs(attempts, 15_000);
}

/**
 * A delivery from the outbox, checked: a payload this version cannot read is dropped rather than retried forever. Its
 * JSON is the message's shared body (deliveries written before bodies were shared carry it in the payload).
 */
function readDelivery({ payload, body: sharedBody }: Pick<LeasedMessage, "payload" | "body">): (OutgoingDelivery & { hookId: number; json: string }) | null {
  const { hookId, trigger, idempotencyKey, eventUuid } = payload;
  const json = sharedBody ?? payload.body;
  if (typeof hookId !== "number" || !isHookTrigger(trigger) || typeof json !== "string") return null;
  if (typeof idempotencyKey !== "string" || typeof eventUuid !== "string") return null;
  // Written by this service's own JSON.stringify: a start that is not an object's is no payload of ours.
  if (!json.startsWith("{")) return null;
  return { hookId, trigger, json, idempotencyKey, eventUuid };
}

/** How many of one hook's deliveries a worker takes at once (`OutboxRunSender`). */
export const deliveryRunLength = 20;
/**
 * How long a run goes on starting deliveries: past it, the rest are handed back for the next lease. With the last
 * attempt's timeout, a run ends well within the worker's lease (`leaseMs`, in lib/startup.ts), so no other worker
 * takes a delivery of the run while it is under way.
 */
export const deliveryRunBudgetMs = 2 * hookTimeoutMs;

/**
 * The outbox's sender of webhook deliveries. It takes a run of one hook's deliveries (they share the hook's ordering
 * key) and sends them in order over one kept-open connection, writing the successes' logs and completions in one
 * statement at the end, so a receiver that keeps up gets a delivery for little more than the request itself.
 *
 * A hook that is gone, or disabled for good, drops its deliveries; one temporarily disabled has them wait until it may
 * be tried again. A failed attempt stops the run: it is retried after a growing delay (no sooner than the hook's
 * backoff allows) until `maxDeliveryAttempts`, and the deliveries behind it are handed back to wait for it. Each
 * attempt is logged.
 */
export function webHookSender(now: () => Date = () => new Date()): OutboxRunSender {
  return {
    runLength: deliveryRunLength,
    async sendRun(handle: DatabaseHandle, run: LeasedMessage[]): Promise<void> {
      const { db } = handle;
      const deliveries = run.map((message) => ({ message, delivery: readDelivery(message) }));
      const hookId = deliveries.find((entry) => entry.delivery)?.delivery?.hookId;
      const [hook] = hookId === undefined ? [] : await db.select().from(projectHooks).where(eq(projectHooks.id, hookId));
      if (!hook || permanentlyDisabled(hook)) {
        await completeMessages(db, run);
        return;
      }
      if (temporarilyDisabled(hook, now())) {
        await db.transaction(async (tx) => {
          await rescheduleMessage(tx, run[0]!, { availableAt: hook.disabledUntil!, error: "Hook disabled", countAttempt: false });
          await releaseMessages(tx, run.slice(1));
        });
        return;
      }
      const session = new OutboundSession();
      try {
        const startedAt = performance.now();
        const target = await hookTarget(db, hook, session);
        const logs: NewWebHookLog[] = [];
        const completed: LeasedMessage[] = [];
        for (const [index, { message, delivery }] of deliveries.entries()) {
          if (performance.now() - startedAt > deliveryRunBudgetMs) {
            await recordSuccesses(db, hook.id, logs, completed);
            await releaseMessages(db, run.slice(index));
            return;
          }
          // A payload this version cannot read is dropped rather than retried forever.
          if (!delivery) {
            completed.push(message);
            continue;
          }
          const attempt = await attemptDelivery(target, delivery, now);
          if (attempt.ok) {
            logs.push(attempt.log);
            completed.push(message);
            continue;
          }
          await recordSuccesses(db, hook.id, logs, completed);
          await recordFailure(db, attempt, now, async (tx) => {
            await releaseMessages(tx, run.slice(index + 1));
            if (message.attempts >= maxDeliveryAttempts) {
              await completeMessage(tx, message);
              return;
            }
            const [after] = await tx.select({ disabledUntil: projectHooks.disabledUntil }).from(projectHooks).where(eq(projectHooks.id, hook.id));
            const retryAt = now().getTime() + retryDelayMs(message.attempts);
            const availableAt = new Date(Math.max(retryAt, after?.disabledUntil?.getTime() ?? 0));
            await rescheduleMessage(tx, message, { availableAt, error: attempt.errorMessage ?? `HTTP ${attempt.status}` });
          });
          return;
        }
        await recordSuccesses(db, hook.id, logs, completed);
      } finally {
        session.close();
      }
    },
  };
}
