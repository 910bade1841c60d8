import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseTime, prometheusSeverity, text, truncate, type AlertAction } from "../normalize";
import { formatIdentity, httpLink, maxSourceLinks, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition, SourceLink } from "./types";

const eventActions: readonly AlertAction[] = ["trigger", "acknowledge", "resolve"];
const severities = ["critical", "error", "warning", "info"];
const maxDedupKeyLength = 255;
const maxSummaryLength = 1024;

/** An Events API v2 alert event: an `event_action` with the event's `payload` or the `dedup_key` it acts on. */
function isPagerDutyEvent(body: Record<string, unknown>): boolean {
  return typeof body.event_action === "string" && (isPlainObject(body.payload) || typeof body.dedup_key === "string");
}

/** PagerDuty's own checks of an event, with its wording; an empty list when the event is valid. */
function eventErrors(body: Record<string, unknown>): string[] {
  const action = body.event_action;
  if (typeof action !== "string" || !(eventActions as readonly string[]).includes(action)) {
    return ["'event_action' is missing or invalid (must be one of trigger, acknowledge, resolve)"];
  }
  const errors: string[] = [];
  if (body.dedup_key !== undefined && (typeof body.dedup_key !== "string" || body.dedup_key.length > maxDedupKeyLength)) {
    errors.push(`'dedup_key' must be a string of at most ${maxDedupKeyLength} characters`);
  }
  if (action !== "trigger") {
    if (stringValue(body.dedup_key) === null) errors.push(`'dedup_key' is required to ${action} an alert`);
    return errors;
  }
  const payload = isPlainObject(body.payload) ? body.payload : null;
  if (!payload) return [...errors, "'payload' is missing or not an object"];
  if (stringValue(payload.summary) === null) errors.push("'payload.summary' is missing or blank");
  else if ((payload.summary as string).length > maxSummaryLength) errors.push(`'payload.summary' is longer than ${maxSummaryLength} characters`);
  if (stringValue(payload.source) === null) errors.push("'payload.source' is missing or blank");
  if (typeof payload.severity !== "string" || !severities.includes(payload.severity)) {
    errors.push(`'payload.severity' is missing or invalid (must be one of ${severities.join(", ")})`);
  }
  return errors;
}

/** A new deduplication key, as PagerDuty assigns one to a trigger that names none: 32 hexadecimal digits. */
function newDedupKey(): string {
  return globalThis.crypto.randomUUID().replaceAll("-", "");
}

function readPagerDutyEvent(body: Record<string, unknown>, now: Date): FormatReading {
  const errors = eventErrors(body);
  if (errors.length > 0) return { kind: "invalid", errors };
  const action = body.event_action as AlertAction;
  const dedupKey = stringValue(body.dedup_key) ?? newDedupKey();
  const payload = isPlainObject(body.payload) ? body.payload : {};
  // The routing key is the integration's key when the sender used the events URL: never stored with the alert.
  const { routing_key: _routingKey, ...stored } = body;
  const source = text(payload.source);
  return {
    kind: "events",
    events: [
      {
        alert: {
          title: truncate(text(payload.summary) ?? defaultAlertTitle, limits.title),
          description: nullableTruncate(payload.custom_details, limits.description),
          startedAt: parseTime(payload.timestamp) ?? now,
          endedAt: action === "resolve" ? now : null,
          service: nullableTruncate(payload.component ?? payload.group, limits.service),
          monitoringTool: nullableTruncate(body.client, limits.monitoringTool) ?? "PagerDuty Events API",
          hosts: source ? [truncate(source, limits.hosts, "")] : [],
          // PagerDuty's four severities through GitLab's table: error is medium, warning is low.
          severity: prometheusSeverity(payload.severity),
          environmentName: null,
          action,
          fingerprintSource: formatIdentity("pagerduty", dedupKey),
        },
        payload: { ...stored, dedup_key: dedupKey },
      },
    ],
  };
}

function linkList(value: unknown, urlKey: string, labelKey: string, fallbackLabel: string): SourceLink[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, maxSourceLinks)
    .flatMap((item) => (isPlainObject(item) ? httpLink(stringValue(item[labelKey]) ?? fallbackLabel, item[urlKey]) : []));
}

/**
 * PagerDuty Events API v2 alert events: `event_action` trigger, acknowledge or resolve, grouped by `dedup_key` (one is
 * assigned when a trigger names none, as PagerDuty does); answered with PagerDuty's 202 body, and its 400 body for an
 * invalid event, so PagerDuty clients read our answers as they read PagerDuty's.
 */
export const pagerDutyFormat: PayloadFormatDefinition = {
  id: "pagerduty",
  detect: isPagerDutyEvent,
  read: readPagerDutyEvent,
  links(stored) {
    const event = isPlainObject(stored) ? stored : {};
    return [
      ...httpLink(stringValue(event.client) ?? "Monitoring tool", event.client_url),
      ...linkList(event.links, "href", "text", "Link"),
      ...linkList(event.images, "href", "alt", "Image"),
    ];
  },
  answer(_recorded, events) {
    const stored = events[0]?.payload;
    return { status: 202, body: { status: "success", message: "Event processed", dedup_key: isPlainObject(stored) ? stored.dedup_key : null } };
  },
  invalidAnswer: (errors) => ({ status: 400, body: { status: "invalid event", message: "Event object is invalid", errors } }),
};
