import "server-only";
import { randomUUID } from "node:crypto";
import { and, desc, eq, gte, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import type { PageRequest } from "@/lib/api/pagination";
import type { Ctx } from "@/lib/context";
import { listPage, type Database, type ListPage } from "@/lib/db";
import { webHookLogs, type WebHookLogRow } from "@/lib/db/schema";
import { NotFoundError, UnprocessableError } from "@/lib/errors";
import { instantParam } from "@/lib/outbox/outbox";
import { executable } from "./auto-disabling";
import { executeHook } from "./delivery";
import { checkEndpointLimit } from "@/lib/rate-limits/endpoint-limits";
import { findHook, projectForHooks } from "./hooks";
import { isHookTrigger } from "./triggers";

/** GitLab keeps a hook's request history for 7 days, and its events API lists that week. */
export const hookLogRetentionDays = 7;

function retentionStart(now: Date): Date {
  return new Date(now.getTime() - hookLogRetentionDays * 24 * 60 * 60 * 1000);
}

/** The `status` filter of the events API: status codes, or `successful`, `client_failure`, `server_failure`. */
export const hookLogStatusCategories = ["successful", "client_failure", "server_failure"] as const;

function statusFilter(statuses: readonly string[] | undefined): SQL | undefined {
  if (!statuses || statuses.length === 0) return undefined;
  const codes = statuses.filter((status) => /^\d{3}$/.test(status));
  const ranges: Record<(typeof hookLogStatusCategories)[number], [number, number]> = {
    successful: [200, 299],
    client_failure: [400, 499],
    server_failure: [500, 599],
  };
  const parts: SQL[] = [];
  if (codes.length > 0) parts.push(inArray(webHookLogs.responseStatus, codes));
  for (const category of hookLogStatusCategories) {
    if (!statuses.includes(category)) continue;
    const [low, high] = ranges[category];
    parts.push(sql`(${webHookLogs.responseStatus} ~ '^[0-9]{3}$' and ${webHookLogs.responseStatus}::int between ${low} and ${high})`);
  }
  return sql`(${sql.join(parts, sql` or `)})`;
}

/** `GET /projects/:id/hooks/:hook_id/events`: the hook's requests of the past week, newest first. */
export async function listHookLogs(
  ctx: Ctx,
  projectReference: string,
  hookId: number,
  filters: { status?: string[] },
  page: PageRequest,
): Promise<ListPage<WebHookLogRow>> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  const where = and(eq(webHookLogs.webHookId, hook.id), gte(webHookLogs.createdAt, retentionStart(ctx.now)), statusFilter(filters.status));
  return listPage(
    ctx.db,
    page,
    ctx.db.select().from(webHookLogs).where(where).orderBy(desc(webHookLogs.createdAt), desc(webHookLogs.id)).$dynamic(),
    ctx.db.select({ one: sql`1` }).from(webHookLogs).where(where).$dynamic(),
  );
}

/** One request of a hook's past week (the settings page's detail). */
export async function getHookLog(ctx: Ctx, projectReference: string, hookId: number, logId: number): Promise<WebHookLogRow> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  return findLog(ctx.db, hook.id, logId, ctx.now);
}

async function findLog(db: Database, hookId: number, logId: number, now: Date): Promise<WebHookLogRow> {
  const [log] = await db
    .select()
    .from(webHookLogs)
    .where(and(eq(webHookLogs.webHookId, hookId), eq(webHookLogs.id, logId), gte(webHookLogs.createdAt, retentionStart(now))));
  if (!log) throw new NotFoundError();
  return log;
}

/**
 * `POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend`: sends the logged request's payload again, now, with
 * its original `Idempotency-Key`, so a receiver can tell it already had it. A disabled hook refuses it.
 */
export async function resendHookLog(ctx: Ctx, projectReference: string, hookId: number, logId: number): Promise<{ responseStatus: number | string }> {
  const view = await projectForHooks(ctx, projectReference);
  const hook = await findHook(ctx, view, hookId);
  const log = await findLog(ctx.db, hook.id, logId, ctx.now);
  await checkEndpointLimit(ctx, "webHookResendsPerProjectAndUser", `project:${view.project.id}`);
  if (!executable(hook, ctx.now)) throw new UnprocessableError("Hook disabled");
  if (!isHookTrigger(log.trigger)) throw new UnprocessableError("Unknown trigger");
  const execution = await executeHook(ctx.db, hook, {
    trigger: log.trigger,
    data: log.requestData,
    idempotencyKey: log.requestHeaders["Idempotency-Key"] ?? randomUUID(),
    eventUuid: log.requestHeaders["X-Gitlab-Event-UUID"] ?? randomUUID(),
  }, () => new Date());
  return { responseStatus: execution.status };
}

export const hookLogEntity = entity(
  "WebHookLog",
  "One delivery of a webhook: what was sent and what came back",
  z.strictObject({
    id: z.number().int(),
    url: z.string(),
    trigger: z.string(),
    request_headers: z.record(z.string(), z.string()),
    /** The payload delivered. */
    request_data: z.unknown(),
    response_headers: z.record(z.string(), z.string()),
    response_body: z.string(),
    execution_duration: z.number(),
    response_status: z.string(),
  }),
);

export const hookResendEntity = entity(
  "WebHookResend",
  "The status the webhook's endpoint answered the delivery sent again with",
  z.strictObject({ response_status: z.union([z.number().int(), z.string()]) }),
);

/** GitLab's WebHookLog entity (the events API). */
export function serializeHookLog(log: WebHookLogRow): z.infer<typeof hookLogEntity> {
  return {
    id: log.id,
    url: log.url,
    trigger: log.trigger,
    request_headers: log.requestHeaders,
    request_data: log.requestData,
    response_headers: log.responseHeaders,
    response_body: log.responseBody,
    execution_duration: log.executionDuration,
    response_status: log.responseStatus,
  };
}

/** Deletes logs older than the retention period, a batch at a time. Answers how many went. */
export async function pruneHookLogs(db: Database, now: Date, batch = 10_000): Promise<number> {
  const before = retentionStart(now);
  let total = 0;
  for (;;) {
    const deleted = await db
      .delete(webHookLogs)
      .where(inArray(webHookLogs.id, db.select({ id: webHookLogs.id }).from(webHookLogs).where(sql`${webHookLogs.createdAt} < ${instantParam(before)}`).limit(batch)))
      .returning({ id: webHookLogs.id });
    total += deleted.length;
    if (deleted.length < batch) return total;
  }
}
