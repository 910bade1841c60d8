import "server-only";
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { instantParam } from "@/lib/outbox/outbox";
import { projectHooks, type ProjectHookRow } from "@/lib/db/schema";

/**
 * GitLab's auto-disabling of failing project hooks (`WebHooks::AutoDisabling`): every failed request counts; from the
 * 4th failure in a row the hook is temporarily disabled, for a minute doubling with each further failure up to a
 * day; from the 40th it is disabled for good. Any successful request (a test included, which is sent even to a
 * disabled hook) clears the count.
 */
export const temporarilyDisabledFailureThreshold = 3;
export const permanentlyDisabledFailureThreshold = 39;
const initialBackoffSeconds = 60;
const maxBackoffSeconds = 24 * 60 * 60;

export type AlertStatus = "executable" | "temporarily_disabled" | "disabled";

type HookState = Pick<ProjectHookRow, "recentFailures" | "disabledUntil">;

export function temporarilyDisabled(hook: HookState, now: Date): boolean {
  return (
    hook.disabledUntil !== null &&
    hook.disabledUntil.getTime() >= now.getTime() &&
    hook.recentFailures > temporarilyDisabledFailureThreshold &&
    hook.recentFailures <= permanentlyDisabledFailureThreshold
  );
}

export function permanentlyDisabled(hook: HookState): boolean {
  return hook.recentFailures > permanentlyDisabledFailureThreshold;
}

export function alertStatus(hook: HookState, now: Date): AlertStatus {
  if (temporarilyDisabled(hook, now)) return "temporarily_disabled";
  if (permanentlyDisabled(hook)) return "disabled";
  return "executable";
}

export function executable(hook: HookState, now: Date): boolean {
  return alertStatus(hook, now) === "executable";
}

/** GitLab's `executable` scope, over `project_hooks`, for hooks that may be sent events at `now`. */
export function executableHooksAt(now: Date): SQL {
  return sql`((${projectHooks.recentFailures} <= ${temporarilyDisabledFailureThreshold}
      or (${projectHooks.disabledUntil} is not null and ${projectHooks.disabledUntil} < ${instantParam(now)}))
    and ${projectHooks.recentFailures} <= ${permanentlyDisabledFailureThreshold})`;
}

/** How long the failure after `recentFailures` earlier ones disables the hook (GitLab's `next_backoff`), in seconds. */
export function backoffSeconds(recentFailures: number): number {
  const backoffCount = recentFailures - temporarilyDisabledFailureThreshold;
  return Math.min(maxBackoffSeconds, Math.max(initialBackoffSeconds, initialBackoffSeconds * 2 ** backoffCount));
}

/**
 * A failed request: counts it and, past the grace failures, disables the hook until the backoff ends (`backoff!`).
 * Only an executable hook counts failures, as GitLab; one statement, so concurrent results cannot lose a count.
 */
export async function recordHookFailure(tx: Executor, hookId: number, now: Date): Promise<void> {
  const next = sql`least(${projectHooks.recentFailures} + 1, ${permanentlyDisabledFailureThreshold + 1})`;
  const backoff = sql`least(${maxBackoffSeconds}::float8, greatest(${initialBackoffSeconds}::float8,
    ${initialBackoffSeconds}::float8 * power(2::float8, (${projectHooks.recentFailures} - ${temporarilyDisabledFailureThreshold})::float8)))`;
  await tx
    .update(projectHooks)
    .set({
      recentFailures: next,
      disabledUntil: sql`case when ${next} > ${temporarilyDisabledFailureThreshold}
        then ${instantParam(now)} + ${backoff} * interval '1 second' else ${projectHooks.disabledUntil} end`,
    })
    .where(and(eq(projectHooks.id, hookId), executableHooksAt(now)));
}

/** A successful request: the hook is executable again (`enable!`). A statement to await or embed. */
export function recordHookSuccess(tx: Executor, hookId: number) {
  return tx
    .update(projectHooks)
    .set({ recentFailures: 0, disabledUntil: null })
    .where(and(eq(projectHooks.id, hookId), sql`(${projectHooks.recentFailures} <> 0 or ${projectHooks.disabledUntil} is not null)`));
}
