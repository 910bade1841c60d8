import "server-only";
import { and, asc, eq, isNotNull, lt, sql } from "drizzle-orm";
import { preparedQuery, type Database } from "@/lib/db";
import { constantTimeEqual, sha256Hex } from "@/lib/crypto";
import { alertIntegrations, namespaces, projects, type AlertIntegrationRow } from "@/lib/db/schema";
import { parseProjectReference, projectNamed } from "@/lib/projects/projects";
import { maxPayloadBytes } from "./integrations";
import { limits, truncate, type NormalizedAlert } from "./normalize";
import { processAlert } from "./process";
import { checkRateLimit, forbidden, presentedKey, unauthorized, type ReceiverAnswer, type ReceiverRequest } from "./receive";

/**
 * Heartbeat integrations, a dead man's switch: a job pings the integration's URL at least every interval, and when no
 * ping came within interval plus grace the housekeeping fires an alert through the normal pipeline; the next ping
 * resolves it. Everything the check needs is in the integration's row (`next_due_at`, `last_ping_at`,
 * `missed_alert_open`), so no replica keeps a timer that a crash or a restart would forget.
 */

/** `…/alerts/heartbeat/:name/:endpoint_identifier`: a heartbeat's ping URL; the key may come as `?token=` too. */
export interface HeartbeatEndpoint {
  kind: "heartbeat";
  identifier: string;
  /** The `token` query parameter, for cron one-liners that cannot set a header easily. */
  queryToken: string | null;
}

const heartbeatByIdentifier = preparedQuery((db) =>
  db
    .select({
      id: alertIntegrations.id,
      active: alertIntegrations.active,
      tokenDigest: alertIntegrations.tokenDigest,
      rateLimitPerMinute: alertIntegrations.rateLimitPerMinute,
    })
    .from(alertIntegrations)
    .innerJoin(projects, eq(projects.id, alertIntegrations.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        projectNamed({ by: "path", namespacePath: sql.placeholder("namespacePath"), projectPath: sql.placeholder("projectPath") }),
        eq(alertIntegrations.endpointIdentifier, sql.placeholder("identifier")),
        eq(alertIntegrations.type, "heartbeat"),
      ),
    )
    .prepare("receiver_heartbeat_by_identifier"),
);

/** The answer to a recorded ping: small, for `curl -fsS` in a crontab. */
const pinged: ReceiverAnswer = { status: 200, body: { status: "ok" } };

/**
 * A ping (`POST`, any body or none, or `GET`), in the receiver's order of checks: size (413), integration (403 when
 * there is no active heartbeat at the URL, as the receiver answers an inactive integration), key (401, constant time;
 * from `Authorization` as the receiver takes it, else the `token` query parameter), the integration's rate limit if it
 * has one (429). The answer is sent after the ping and any recovery are committed.
 */
export async function receiveHeartbeatPing(
  db: Database,
  projectPath: string,
  endpoint: HeartbeatEndpoint,
  request: ReceiverRequest,
  now: Date,
): Promise<ReceiverAnswer> {
  // The body means nothing to a heartbeat, but it is read to its end, as every receiver request's is.
  if ((await request.readBody()) === null) return { status: 413, body: { message: `The payload is larger than ${maxPayloadBytes} bytes.` } };
  const project = parseProjectReference(projectPath);
  if (project?.by !== "path") return forbidden;
  const [heartbeat] = await heartbeatByIdentifier(db).execute({
    namespacePath: project.namespacePath,
    projectPath: project.projectPath,
    identifier: endpoint.identifier,
  });
  if (!heartbeat || !heartbeat.active) return forbidden;
  const key = presentedKey(request.authorization) ?? endpoint.queryToken;
  if (!key || !constantTimeEqual(sha256Hex(key), heartbeat.tokenDigest)) return unauthorized;
  const limited = await checkRateLimit(db, heartbeat, now);
  if (limited) return limited;
  await recordPing(db, heartbeat.id, now);
  return pinged;
}

/**
 * Records a ping. Most pings find the heartbeat up and are one conditional update; one that finds the missed alert
 * open (or a check holding the row) takes the row's lock, resolves the alert through the normal pipeline and restarts
 * the wait, in one transaction, so a recovery is sent exactly once.
 */
async function recordPing(db: Database, integrationId: number, now: Date): Promise<void> {
  const [updated] = await db
    .update(alertIntegrations)
    .set({ lastPingAt: now, nextDueAt: pingDueAt(now), updatedAt: keptUpdatedAt })
    .where(and(eq(alertIntegrations.id, integrationId), eq(alertIntegrations.active, true), eq(alertIntegrations.missedAlertOpen, false)))
    .returning({ id: alertIntegrations.id });
  if (updated) return;
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(alertIntegrations).where(eq(alertIntegrations.id, integrationId)).for("update");
    // Deleted since the lookup: nothing is left to record. One deactivated meanwhile still takes the ping (and its
    // recovery), as it would have a moment earlier, but awaits no other.
    if (!row) return;
    if (row.missedAlertOpen) await processAlert(tx, heartbeatAlert(row, "resolve", now));
    await tx
      .update(alertIntegrations)
      .set({ lastPingAt: now, nextDueAt: row.active ? pingDueAt(now) : null, missedAlertOpen: false, updatedAt: keptUpdatedAt })
      .where(eq(alertIntegrations.id, integrationId));
  });
}

function pingDueAt(now: Date) {
  return sql`${now.toISOString()}::timestamptz + make_interval(secs => ${alertIntegrations.heartbeatIntervalSeconds} + ${alertIntegrations.heartbeatGraceSeconds})`;
}

/** A ping or a check is no change to the integration's settings, so their `updated_at` stays. */
const keptUpdatedAt = sql`${alertIntegrations.updatedAt}`;

/** At most this many heartbeats fire per check, so one run stays short; the rest are left for the next. */
export const heartbeatCheckBatch = 100;

/**
 * The housekeeping's check: fires the alert of each active heartbeat overdue at `now`, oldest due first, at most
 * `batch` of them. Each is claimed with `FOR UPDATE SKIP LOCKED` in its own transaction, fired, and marked missed with
 * no due time in the same transaction, so replicas checking at once share the work and never fire one twice, a crash
 * before the commit leaves it due for the next check, and later checks skip it until a ping (`recordPing`). The
 * candidates are read from `alert_integrations_heartbeat_due_idx`.
 */
export async function checkHeartbeats(db: Database, now: Date, batch = heartbeatCheckBatch): Promise<{ fired: number }> {
  let fired = 0;
  while (fired < batch) {
    const claimed = await db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(alertIntegrations)
        .where(
          and(
            // Written as the partial index's predicate is, with no parameter, so every plan can use the index.
            sql`${alertIntegrations.active}`,
            isNotNull(alertIntegrations.nextDueAt),
            lt(alertIntegrations.nextDueAt, now),
            eq(alertIntegrations.type, "heartbeat"),
          ),
        )
        .orderBy(asc(alertIntegrations.nextDueAt))
        .limit(1)
        .for("update", { skipLocked: true });
      if (!row) return false;
      await processAlert(tx, heartbeatAlert(row, "trigger", now));
      await tx
        .update(alertIntegrations)
        .set({ missedAlertOpen: true, nextDueAt: null, updatedAt: keptUpdatedAt })
        .where(eq(alertIntegrations.id, row.id));
      return true;
    });
    if (!claimed) break;
    fired += 1;
  }
  return { fired };
}

/**
 * The alert of a missed heartbeat, and its recovery: grouped by a fingerprint only this heartbeat has, so a repeat
 * counts on the open alert instead of opening another.
 */
function heartbeatAlert(row: AlertIntegrationRow, action: "trigger" | "resolve", now: Date) {
  const due = row.nextDueAt ?? now;
  const normalized: NormalizedAlert = {
    title: truncate(`Heartbeat ${row.name} missed`, limits.title),
    description: truncate(
      row.lastPingAt
        ? `No ping since ${row.lastPingAt.toISOString()}; a ping is expected every ${row.heartbeatIntervalSeconds} s, ${row.heartbeatGraceSeconds} s late at most.`
        : `No ping since the heartbeat was activated; a ping is expected every ${row.heartbeatIntervalSeconds} s, ${row.heartbeatGraceSeconds} s late at most.`,
      limits.description,
    ),
    startedAt: action === "trigger" ? due : now,
    endedAt: action === "resolve" ? now : null,
    service: null,
    monitoringTool: null,
    hosts: [],
    severity: "critical",
    environmentName: null,
    action,
    fingerprintSource: { heartbeat_integration_id: row.id },
  };
  const payload = {
    heartbeat: row.name,
    status: action === "trigger" ? "missed" : "up",
    interval_seconds: row.heartbeatIntervalSeconds,
    grace_seconds: row.heartbeatGraceSeconds,
    last_ping_at: row.lastPingAt?.toISOString() ?? null,
    due_at: row.nextDueAt?.toISOString() ?? null,
  };
  return { projectId: row.projectId, integration: { id: row.id, name: row.name }, normalized, payload, format: "generic" as const, now };
}
