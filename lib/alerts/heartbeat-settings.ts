import "server-only";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import { alertIntegrations, type AlertIntegrationRow } from "@/lib/db/schema";
import { ValidationError } from "@/lib/errors";
import { heartbeatLimits } from "./form-schemas";

/** A heartbeat integration's settings, its schedule and how it is shown; the pings and the check are `heartbeats.ts`. */

export interface HeartbeatSettings {
  intervalSeconds: number;
  graceSeconds: number;
}

/** How long an unset grace period is: a cron job started on the minute may ping some seconds late. */
export const defaultHeartbeatGraceSeconds = 60;

function rangeProblem(value: number, range: { min: number; max: number }): string[] | null {
  if (!Number.isInteger(value) || value < range.min || value > range.max) return [`must be a whole number of seconds from ${range.min} to ${range.max}`];
  return null;
}

/**
 * The heartbeat settings of a heartbeat integration being created (no `existing`) or changed; a setting given to any
 * other type of integration is refused, since nothing would ever read it.
 */
export function heartbeatSettingsOf(
  type: AlertIntegrationRow["type"],
  input: { intervalSeconds?: number; graceSeconds?: number },
  existing?: HeartbeatSettings,
): HeartbeatSettings | null {
  if (type !== "heartbeat") {
    const given = { heartbeat_interval_seconds: input.intervalSeconds, heartbeat_grace_seconds: input.graceSeconds };
    const errors = Object.fromEntries(
      Object.entries(given)
        .filter(([, value]) => value !== undefined)
        .map(([field]) => [field, ["is only for heartbeat integrations"]]),
    );
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return null;
  }
  const intervalSeconds = input.intervalSeconds ?? existing?.intervalSeconds;
  if (intervalSeconds === undefined) throw new ValidationError({ heartbeat_interval_seconds: ["can't be blank"] });
  const graceSeconds = input.graceSeconds ?? existing?.graceSeconds ?? defaultHeartbeatGraceSeconds;
  const errors: Record<string, string[]> = {};
  const intervalProblem = rangeProblem(intervalSeconds, heartbeatLimits.intervalSeconds);
  if (intervalProblem) errors.heartbeat_interval_seconds = intervalProblem;
  const graceProblem = rangeProblem(graceSeconds, heartbeatLimits.graceSeconds);
  if (graceProblem) errors.heartbeat_grace_seconds = graceProblem;
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { intervalSeconds, graceSeconds };
}

/** When a heartbeat becomes overdue, counted from `since` (its last ping, or when it was activated). */
export function dueAfter(since: Date, settings: HeartbeatSettings): Date {
  return new Date(since.getTime() + (settings.intervalSeconds + settings.graceSeconds) * 1000);
}

/**
 * The `next_due_at` of a heartbeat whose settings or `active` change, in SQL over the row as it is when the update
 * takes its lock, so a ping or a check that commits in between is not undone: nothing is awaited while inactive or
 * while the missed alert is open (the next ping resolves it and starts over); an activation counts from now; otherwise
 * the same start (the last ping, else the activation the old due time was counted from) with the new settings.
 */
export function rescheduledDueAt(active: boolean, settings: HeartbeatSettings, now: Date) {
  const period = sql`make_interval(secs => ${settings.intervalSeconds + settings.graceSeconds})`;
  if (!active) return sql`null`;
  return sql`case
    when ${alertIntegrations.missedAlertOpen} then null
    when not ${alertIntegrations.active} or ${alertIntegrations.nextDueAt} is null then ${now.toISOString()}::timestamptz + ${period}
    else coalesce(
      ${alertIntegrations.lastPingAt},
      ${alertIntegrations.nextDueAt} - make_interval(secs => ${alertIntegrations.heartbeatIntervalSeconds} + ${alertIntegrations.heartbeatGraceSeconds})
    ) + ${period}
  end`;
}

export const heartbeatStatuses = ["inactive", "waiting", "up", "missed"] as const;
export type HeartbeatStatus = (typeof heartbeatStatuses)[number];

/**
 * What the integration list says of a heartbeat: `missed` from the check that fired its alert until the next ping,
 * `waiting` for its first ping, `up` after one, `inactive` while it is off (pings are refused then).
 */
export function heartbeatStatus(integration: Pick<AlertIntegrationRow, "active" | "missedAlertOpen" | "lastPingAt">): HeartbeatStatus {
  if (integration.missedAlertOpen) return "missed";
  if (!integration.active) return "inactive";
  return integration.lastPingAt === null ? "waiting" : "up";
}

export const heartbeatEntity = entity(
  "Heartbeat",
  "A heartbeat integration's schedule and state",
  z.strictObject({
    interval_seconds: z.number().int(),
    grace_seconds: z.number().int(),
    last_ping_at: isoDateTime.nullable(),
    next_due_at: isoDateTime.nullable(),
    status: z.enum(heartbeatStatuses),
  }),
);

/** The API's `heartbeat` member of an integration: null for other types. */
export function serializeHeartbeat(integration: AlertIntegrationRow): z.infer<typeof heartbeatEntity> | null {
  if (integration.type !== "heartbeat" || integration.heartbeatIntervalSeconds === null || integration.heartbeatGraceSeconds === null) return null;
  return {
    interval_seconds: integration.heartbeatIntervalSeconds,
    grace_seconds: integration.heartbeatGraceSeconds,
    last_ping_at: integration.lastPingAt?.toISOString() ?? null,
    next_due_at: integration.nextDueAt?.toISOString() ?? null,
    status: heartbeatStatus(integration),
  };
}
