import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { projectIntegrations } from "@/lib/db/schema";
import { sendOutbound } from "@/lib/http/outbound";
import { compatibleGitlabVersion } from "@/lib/instance/metadata";
import { localRequestsAllowedFromWebHooks } from "@/lib/instance/settings";
import { logger } from "@/lib/log";
import { completeMessage, rescheduleMessage, type LeasedMessage } from "@/lib/outbox/outbox";
import { hookTimeoutMs, maxDeliveryAttempts, retryDelayMs } from "@/lib/webhooks/delivery";
import { firedChatEvents, type FiredChatEvent } from "./catalog";
import type { ChatDelivery } from "./enqueue";
import type { ChatRequest } from "./formats";
import { webhookOf } from "./integrations";

/** What is kept of a receiver's answer to say what went wrong. */
const responseBodyLimit = 8 * 1024;
const shownBodyLength = 200;

export interface ChatSendResult {
  ok: boolean;
  /** Worth trying again: no answer, the receiver's own trouble (5xx), or its rate limit (429). */
  retryable: boolean;
  /** What happened, for people and logs: `HTTP 404: no_team` or why no answer came. */
  summary: string;
}

/** The webhook with the request's parameters added to its query (GitLab's `add_url_parameters`). */
function urlWith(webhook: string, query: Record<string, string> | undefined): string {
  if (!query) return webhook;
  try {
    const url = new URL(webhook);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  } catch {
    // `sendOutbound` refuses it, saying why.
    return webhook;
  }
}

/**
 * Posts one request to an integration's webhook under the outbound rules (the local network only when the instance
 * allows it, as for webhooks). Never throws for what the receiver does.
 */
export async function sendChatRequest(db: Database, webhook: string, outgoing: ChatRequest): Promise<ChatSendResult> {
  const result = await sendOutbound({
    url: urlWith(webhook, outgoing.query),
    method: "POST",
    headers: { "Content-Type": outgoing.contentType, "User-Agent": `GitLab/${compatibleGitlabVersion}` },
    body: outgoing.body,
    timeoutMs: hookTimeoutMs,
    maxResponseBytes: responseBodyLimit,
    allowLocalNetwork: await localRequestsAllowedFromWebHooks(db),
  });
  if (result.kind !== "response") return { ok: false, retryable: result.kind === "failed", summary: result.reason };
  const ok = result.status >= 200 && result.status < 300;
  const body = result.body.trim().slice(0, shownBodyLength);
  return { ok, retryable: result.status >= 500 || result.status === 429, summary: `HTTP ${result.status}${body ? `: ${body}` : ""}` };
}

/** A message from the outbox, checked: a payload this version cannot read is dropped rather than retried forever. */
function readDelivery(payload: Record<string, unknown>): ChatDelivery | null {
  const { integrationId, event, request: outgoing } = payload as Partial<ChatDelivery>;
  if (typeof integrationId !== "number" || !firedChatEvents.includes(event as FiredChatEvent)) return null;
  if (!outgoing || typeof outgoing.body !== "string" || typeof outgoing.contentType !== "string") return null;
  return { integrationId, event: event!, request: outgoing };
}

/**
 * The outbox's sender of chat notifications. A message of an integration that is gone or turned off is dropped. A
 * failure worth retrying is retried after a growing delay (as webhook deliveries are) until `maxDeliveryAttempts`;
 * then, or at once for a refusal (4xx, or an address not allowed), the message is given up and the log says why.
 */
export function chatNotificationSender(now: () => Date = () => new Date()) {
  return async (handle: DatabaseHandle, message: LeasedMessage): Promise<void> => {
    const { db } = handle;
    const delivery = readDelivery(message.payload);
    const [integration] = delivery ? await db.select().from(projectIntegrations).where(eq(projectIntegrations.id, delivery.integrationId)) : [];
    const webhook = integration?.active ? await webhookOf(db, integration) : null;
    if (!delivery || !integration || webhook === null) {
      await completeMessage(db, message);
      return;
    }
    const result = await sendChatRequest(db, webhook, delivery.request);
    if (result.ok) {
      await completeMessage(db, message);
      return;
    }
    if (result.retryable && message.attempts < maxDeliveryAttempts) {
      await rescheduleMessage(db, message, { availableAt: new Date(now().getTime() + retryDelayMs(message.attempts)), error: result.summary });
      return;
    }
    logger.warn(
      { integrationId: integration.id, projectId: integration.projectId, integration: integration.type, event: delivery.event, attempts: message.attempts, reason: result.summary },
      "chat notification given up",
    );
    await completeMessage(db, message);
  };
}
