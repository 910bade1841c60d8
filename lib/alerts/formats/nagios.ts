import type { AlertSeverity } from "../fields";
import { defaultAlertTitle, limits, nullableTruncate, parseMappedTime, truncate, type AlertAction } from "../normalize";
import { formatIdentity, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Nagios and Icinga, through the notification command the README gives: it posts the notification's macros as JSON,
 * `{ notification_type, host_name, service_description, state, output, timestamp }` (`service_description` empty for
 * a host notification).
 */
const requiredKeys = ["notification_type", "host_name", "state", "output"];

function isNagiosNotification(body: Record<string, unknown>): boolean {
  return requiredKeys.every((key) => typeof body[key] === "string") && Object.hasOwn(body, "service_description");
}

/** `$NOTIFICATIONTYPE$`: what the notification tells; flapping and downtime notices change nothing here. */
const notificationActions: Record<string, AlertAction> = { PROBLEM: "trigger", RECOVERY: "resolve", ACKNOWLEDGEMENT: "acknowledge" };

/** Service states (CRITICAL, WARNING, UNKNOWN) and host states (DOWN, UNREACHABLE). */
const stateSeverities: Record<string, AlertSeverity> = { CRITICAL: "critical", DOWN: "critical", UNREACHABLE: "high", WARNING: "low", UNKNOWN: "unknown" };

function readNagios(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isNagiosNotification(body)) {
    return { kind: "invalid", errors: ["The payload is not a Nagios or Icinga notification from the documented command (notification_type, host_name, service_description, state, output)."] };
  }
  const type = String(body.notification_type).trim().toUpperCase();
  const action = notificationActions[type];
  if (!action) return { kind: "ignored", reason: `Nagios notification ${type}` };
  const host = stringValue(body.host_name);
  const service = stringValue(body.service_description);
  const state = String(body.state).trim().toUpperCase();
  const time = parseMappedTime(body.timestamp);
  return oneAlertEvent(
    {
      title: truncate(host ? (service ? `${service} on ${host} is ${state}` : `${host} is ${state}`) : defaultAlertTitle, limits.title),
      description: nullableTruncate(stringValue(body.output), limits.description),
      startedAt: (action === "trigger" ? time : null) ?? now,
      endedAt: action === "resolve" ? (time ?? now) : null,
      service: nullableTruncate(service, limits.service),
      monitoringTool: "Nagios",
      hosts: host ? [truncate(host, limits.hosts, "")] : [],
      // A recovery's state is OK or UP: its severity is the problem's, which the alert keeps.
      severity: stateSeverities[state] ?? "critical",
      environmentName: null,
      action,
      // The check itself: a problem after a recovery opens a new alert, as the resolved one takes no repeats.
      fingerprintSource: formatIdentity("nagios", host, service),
    },
    body,
  );
}

/** Nagios and Icinga: a problem fires, an acknowledgement acknowledges, a recovery resolves; grouped by host and service. */
export const nagiosFormat: PayloadFormatDefinition = {
  id: "nagios",
  detect: isNagiosNotification,
  read: readNagios,
  links: () => [],
};
