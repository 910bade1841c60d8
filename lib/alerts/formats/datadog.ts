import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseMappedTime, prometheusSeverity, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, objectAt, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/** The keys of Datadog's default webhook payload. */
const defaultPayloadKeys = ["body", "last_updated", "event_type", "title", "date", "org", "id"];

function isDatadogDefaultPayload(body: Record<string, unknown>): boolean {
  return defaultPayloadKeys.every((key) => key in body) && isPlainObject(body.org);
}

/**
 * A monitor notification's title: `[P2] [Triggered on {host:web-1}] CPU is high` — an optional priority, the
 * transition with the scope it happened on, then the monitor's name.
 */
const monitorTitle = /^(?:\[(P[1-5])\]\s*)?\[(Triggered|Re-Triggered|Recovered|Warn|Re-Warn|No Data|Re-No Data|Renotify)(?: on ([^\]]*))?\]\s*(.*)$/i;

export function parseDatadogTitle(title: string) {
  const match = monitorTitle.exec(title.trim());
  if (!match) return null;
  return { priority: match[1] ?? null, transition: match[2]!.toLowerCase(), scope: match[3]?.trim() || null, monitor: match[4]!.trim() };
}

function readDatadog(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isDatadogDefaultPayload(body)) return { kind: "invalid", errors: ["The payload is not Datadog's default webhook payload."] };
  const rawTitle = stringValue(body.title) ?? defaultAlertTitle;
  const parsed = parseDatadogTitle(rawTitle);
  const orgId = identifierValue(objectAt(body, "org").id);
  const resolving = parsed?.transition === "recovered";
  const title = parsed ? (parsed.scope ? `${parsed.monitor} on ${parsed.scope}` : parsed.monitor) || defaultAlertTitle : rawTitle;
  // The priority is GitLab's p1…p5 scale; without one a warning is low and anything else critical.
  const severity = parsed?.priority ? prometheusSeverity(parsed.priority) : prometheusSeverity(parsed?.transition.replace(/^re-/, ""));
  const startedAt = parseMappedTime(body.date) ?? now;
  return {
    kind: "events",
    events: [
      {
        alert: {
          title: truncate(title, limits.title),
          description: nullableTruncate(stringValue(body.body), limits.description),
          startedAt,
          endedAt: resolving ? (parseMappedTime(body.last_updated) ?? startedAt) : null,
          service: null,
          monitoringTool: "Datadog",
          hosts: [],
          severity,
          environmentName: null,
          action: resolving ? "resolve" : "trigger",
          // The monitor and the scope it fired on: the same in its Triggered and Recovered notifications.
          fingerprintSource: formatIdentity("datadog", orgId, parsed?.scope ?? null, parsed?.monitor ?? rawTitle),
        },
        payload: body,
      },
    ],
  };
}

/** Markdown links in the notification's text (`[Monitor Status](https://app.datadoghq.com/monitors/…)`). */
const markdownLink = /\[([^[\]\n]{1,100})\]\((https?:\/\/[^)\s]+)\)/g;

/**
 * Datadog's default webhook payload: the monitor's transition in the title (`[Triggered]`, `[Recovered]`), grouped by
 * the monitor and scope, severity from the `[P1]`…`[P5]` priority; links from the notification's text.
 */
export const datadogFormat: PayloadFormatDefinition = {
  id: "datadog",
  detect: isDatadogDefaultPayload,
  read: readDatadog,
  links(stored) {
    const text = isPlainObject(stored) && typeof stored.body === "string" ? stored.body : "";
    return [...text.matchAll(markdownLink)].flatMap((match) => httpLink(match[1]!, match[2]));
  },
};
