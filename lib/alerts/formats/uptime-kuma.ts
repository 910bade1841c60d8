import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, truncate, truncateHosts } from "../normalize";
import { formatIdentity, httpLink, identifierValue, objectAt, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Uptime Kuma's Webhook notification, "Preset - application/json" (server/notification-providers/webhook.js):
 * `{ heartbeat, monitor, msg }`, the heartbeat and monitor as Uptime Kuma stores them. Its Test button sends both as
 * null, with a message.
 */
function isUptimeKumaPayload(body: Record<string, unknown>): boolean {
  if (typeof body.msg !== "string" || !Object.hasOwn(body, "heartbeat") || !Object.hasOwn(body, "monitor")) return false;
  if (body.heartbeat === null && body.monitor === null) return true;
  return isPlainObject(body.heartbeat) && isPlainObject(body.monitor) && Object.hasOwn(body.heartbeat, "monitorID") && Object.hasOwn(body.heartbeat, "status");
}

/** A heartbeat's `status`: 0 down, 1 up, 2 pending (retrying before it calls the monitor down), 3 maintenance. */
const heartbeatStatuses: Record<number, "down" | "up" | "pending" | "maintenance"> = { 0: "down", 1: "up", 2: "pending", 3: "maintenance" };

/** A heartbeat's `time`: UTC, written `2024-05-05 10:00:00.123` (no zone). */
function heartbeatTime(value: unknown): Date | null {
  const text = stringValue(value);
  if (!text) return null;
  const time = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
  return Number.isNaN(time.getTime()) ? null : time;
}

function readUptimeKuma(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isUptimeKumaPayload(body)) return { kind: "invalid", errors: ["The payload is not an Uptime Kuma webhook notification (heartbeat, monitor and msg)."] };
  const heartbeat = objectAt(body, "heartbeat");
  const monitor = objectAt(body, "monitor");
  const message = stringValue(body.msg);
  if (!isPlainObject(body.monitor)) {
    // The Test button's notification: an alert of its own, so the Maintainer sees the integration works.
    return oneAlertEvent(
      {
        title: truncate(message ?? defaultAlertTitle, limits.title),
        description: null,
        startedAt: now,
        endedAt: null,
        service: null,
        monitoringTool: "Uptime Kuma",
        hosts: [],
        severity: "info",
        environmentName: null,
        action: "trigger",
        fingerprintSource: formatIdentity("uptime_kuma", "test"),
      },
      body,
    );
  }
  const status = heartbeatStatuses[Number(heartbeat.status)];
  if (status !== "down" && status !== "up") return { kind: "ignored", reason: `Uptime Kuma heartbeat ${status ?? String(heartbeat.status)}` };
  const monitorId = identifierValue(monitor.id) ?? identifierValue(heartbeat.monitorID);
  const name = stringValue(monitor.name);
  const target = stringValue(monitor.url) ?? stringValue(monitor.hostname);
  return oneAlertEvent(
    {
      title: truncate(name ? `${name} is down` : (message ?? defaultAlertTitle), limits.title),
      description: nullableTruncate(heartbeat.msg, limits.description),
      startedAt: heartbeatTime(heartbeat.time) ?? now,
      endedAt: status === "up" ? (heartbeatTime(heartbeat.time) ?? now) : null,
      service: nullableTruncate(name, limits.service),
      monitoringTool: "Uptime Kuma",
      hosts: target && target !== "https://" ? truncateHosts([target]) : [],
      // A monitor is up or down: Uptime Kuma has no severities, and a service that is down is critical.
      severity: "critical",
      environmentName: null,
      action: status === "up" ? "resolve" : "trigger",
      fingerprintSource: monitorId ? formatIdentity("uptime_kuma", monitorId) : null,
    },
    body,
  );
}

/**
 * Uptime Kuma: a monitor going down fires, coming back up resolves; pending and maintenance heartbeats change nothing.
 * Grouped by the monitor; links to the monitored URL.
 */
export const uptimeKumaFormat: PayloadFormatDefinition = {
  id: "uptime_kuma",
  detect: isUptimeKumaPayload,
  read: readUptimeKuma,
  links: (stored) => httpLink("Monitored URL", objectAt(stored, "monitor").url),
};
