import "server-only";
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { projectHooks, webHookLogs, type ProjectHookRow } from "@/lib/db/schema";
import { statementRows } from "@/lib/db/statement-rows";
import { sendOutbound } from "@/lib/http/outbound";
import { compatibleGitlabVersion } from "@/lib/instance/metadata";
import { localRequestsAllowedFromWebHooks } from "@/lib/instance/settings";
import { completeMessage, completionCtes, growingRetryDelayMs, rescheduleMessage, type LeasedMessage } from "@/lib/outbox/outbox";
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

/**
 * Sends `data` to the hook once and logs the request and what came back (`WebHookService#execute` and its log), and
 * counts the result toward the hook's auto-disabling with the log. Never throws for what the receiver does. A delivery
 * from the outbox names its `message`: a success completes it in the log's statement (one round trip for the usual
 * case), and after a failure `afterFailure` completes or reschedules it in the log's transaction.
 */
export async function executeHook(
  db: Database,
  hook: ProjectHookRow,
  delivery: Pick<HookDelivery, "trigger" | "data" | "idempotencyKey" | "eventUuid">,
  now: () => Date,
  outbox?: { message: Pick<LeasedMessage, "id" | "leaseToken">; afterFailure: (tx: Executor, execution: HookExecution) => Promise<void> },
): Promise<HookExecution> {
  const [token, customHeaders] = await Promise.all([tokenOf(db, hook), customHeadersOf(db, hook)]);
  const headers = requestHeaders(hook, delivery.trigger, delivery, token, customHeaders);
  let requestData: unknown = delivery.data;
  let status: HookExecution["status"] = "internal error";
  let responseHeaders: Record<string, string> = {};
  let responseBody = "";
  let errorMessage: string | null = null;
  let durationMs = 0;
  const rendered = hook.customWebhookTemplate ? renderCustomTemplate(hook.customWebhookTemplate, delivery.data) : { ok: true as const, value: delivery.data };
  if (!rendered.ok) {
    requestData = {};
    errorMessage = rendered.error;
  } else {
    requestData = rendered.value;
    const result = await sendOutbound({
      url: hook.url,
      method: "POST",
      headers: headers.sent,
      body: JSON.stringify(rendered.value),
      timeoutMs: hookTimeoutMs,
      maxResponseBytes: responseBodyLimit,
      allowLocalNetwork: await localRequestsAllowedFromWebHooks(db),
      verifyTls: hook.enableSslVerification,
    });
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
  const ok = typeof status === "number" && status >= 200 && status < 400;
  const log = (executor: Executor) =>
    executor
      .insert(webHookLogs)
      .values({
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
      })
      .returning({ id: webHookLogs.id });
  const execution = (logId: number): HookExecution => ({ status, ok, responseBody, errorMessage, logId });
  if (ok) {
    const [logged] = statementRows<{ id: number }>(
      // The builders' own SQL, as the statement's parts (embedded as they are, they would be parenthesized subqueries).
      await db.execute(sql`with logged as (${log(db).getSQL()}), healthy as (${recordHookSuccess(db, hook.id).getSQL()})${
        outbox ? sql`, ${completionCtes(outbox.message)}` : sql``
      } select id from logged`),
    );
    return execution(Number(logged!.id));
  }
  return db.transaction(async (tx) => {
    const [logged] = await log(tx);
    await recordHookFailure(tx, hook.id, now());
    const failed = execution(logged!.id);
    await outbox?.afterFailure(tx, failed);
    return failed;
  });
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
function readDelivery({ payload, body: sharedBody }: Pick<LeasedMessage, "payload" | "body">): HookDelivery | null {
  const { hookId, trigger, idempotencyKey, eventUuid } = payload;
  const body = sharedBody ?? payload.body;
  if (typeof hookId !== "number" || !isHookTrigger(trigger) || typeof body !== "string") return null;
  if (typeof idempotencyKey !== "string" || typeof eventUuid !== "string") return null;
  try {
    return { hookId, trigger, data: JSON.parse(body), idempotencyKey, eventUuid };
  } catch {
    return null;
  }
}

/**
 * The outbox's sender of webhook deliveries. A hook that is gone, or disabled for good, drops its deliveries; one
 * temporarily disabled has them wait until it may be tried again. A failed attempt is retried after a growing
 * delay (no sooner than the hook's backoff allows) until `maxDeliveryAttempts`; each attempt is logged.
 */
export function webHookSender(now: () => Date = () => new Date()) {
  return async (handle: DatabaseHandle, message: LeasedMessage): Promise<void> => {
    const { db } = handle;
    const delivery = readDelivery(message);
    const [hook] = delivery ? await db.select().from(projectHooks).where(eq(projectHooks.id, delivery.hookId)) : [];
    if (!delivery || !hook || permanentlyDisabled(hook)) {
      await completeMessage(db, message);
      return;
    }
    if (temporarilyDisabled(hook, now())) {
      await rescheduleMessage(db, message, { availableAt: hook.disabledUntil!, error: "Hook disabled", countAttempt: false });
      return;
    }
    await executeHook(db, hook, delivery, now, {
      message,
      afterFailure: async (tx, execution) => {
        if (message.attempts >= maxDeliveryAttempts) {
          await completeMessage(tx, message);
          return;
        }
        const [after] = await tx.select({ disabledUntil: projectHooks.disabledUntil }).from(projectHooks).where(eq(projectHooks.id, hook.id));
        const retryAt = now().getTime() + retryDelayMs(message.attempts);
        const availableAt = new Date(Math.max(retryAt, after?.disabledUntil?.getTime() ?? 0));
        await rescheduleMessage(tx, message, { availableAt, error: execution.errorMessage ?? `HTTP ${execution.status}` });
      },
    });
  };
}
