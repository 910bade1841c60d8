import type { AlertSeverity } from "../fields";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseTime, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Zabbix, through the webhook media type the README gives: its script posts the media type's parameters (Zabbix's
 * event macros) as JSON, `{ event_id, event_value, event_name, event_severity, host_name, … }`. `{EVENT.VALUE}` is 1 for
 * a problem and 0 for its recovery, and a recovery's `{EVENT.ID}` is its problem's, so the two meet in one alert.
 */
const requiredKeys = ["event_id", "event_value", "event_name", "host_name"];

function isZabbixEvent(body: Record<string, unknown>): boolean {
  return requiredKeys.every((key) => Object.hasOwn(body, key)) && identifierValue(body.event_id) !== null && Object.hasOwn(body, "event_severity");
}

/** Zabbix's severity names (`{EVENT.SEVERITY}`), its numbers (`{EVENT.NSEVERITY}`, 0–5) as a fallback. */
const namedSeverities: Record<string, AlertSeverity> = {
  disaster: "critical",
  high: "high",
  average: "medium",
  warning: "low",
  information: "info",
  "not classified": "unknown",
};
const numberedSeverities: AlertSeverity[] = ["unknown", "info", "low", "medium", "high", "critical"];

function zabbixSeverity(named: unknown, numbered: unknown): AlertSeverity {
  const byName = typeof named === "string" ? namedSeverities[named.trim().toLowerCase()] : undefined;
  return byName ?? numberedSeverities[Number(numbered)] ?? "critical";
}

/** `{EVENT.DATE}` `{EVENT.TIME}` (`2026.03.01` `12:00:05`, the Zabbix server's local time, taken as UTC). */
function eventTime(date: unknown, time: unknown): Date | null {
  const day = stringValue(date);
  const clock = stringValue(time);
  if (!day || !clock) return null;
  return parseTime(`${day.replaceAll(".", "-")}T${clock}Z`);
}

function readZabbix(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isZabbixEvent(body)) return { kind: "invalid", errors: ["The payload is not a Zabbix event from the documented media type (event_id, event_value, event_name, event_severity, host_name)."] };
  const value = String(body.event_value).trim();
  if (value !== "0" && value !== "1") return { kind: "ignored", reason: `Zabbix event value ${value}` };
  const recovery = value === "0";
  const host = stringValue(body.host_name);
  return oneAlertEvent(
    {
      title: truncate(stringValue(body.event_name) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(stringValue(body.trigger_description) ?? stringValue(body.event_opdata), limits.description),
      startedAt: eventTime(body.event_date, body.event_time) ?? now,
      endedAt: recovery ? (eventTime(body.event_recovery_date, body.event_recovery_time) ?? now) : null,
      service: nullableTruncate(stringValue(body.host_group), limits.service),
      monitoringTool: "Zabbix",
      hosts: host ? [truncate(host, limits.hosts, "")] : [],
      severity: zabbixSeverity(body.event_severity, body.event_nseverity),
      environmentName: null,
      action: recovery ? "resolve" : "trigger",
      fingerprintSource: formatIdentity("zabbix", identifierValue(body.event_id)),
    },
    body,
  );
}

/** Zabbix: a problem fires, its recovery resolves; grouped by the problem event; links to the event in Zabbix. */
export const zabbixFormat: PayloadFormatDefinition = {
  id: "zabbix",
  detect: isZabbixEvent,
  read: readZabbix,
  links: (stored) => httpLink("Event in Zabbix", isPlainObject(stored) ? stored.event_url : undefined),
};
