import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseMappedTime, prometheusSeverity, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, maxSourceLinks, objectAt, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/** The keys of Datadog's default webhook payload. */
const defaultPayloadKeys = ["body", "last_updated", "event_type", "title", "date", "org", "id"];

function isDatadogDefaultPayload(body: Record<string, unknown>): boolean {
  return defaultPayloadKeys.every((key) => Object.hasOwn(body, key)) && isPlainObject(body.org);
}

/**
 * A monitor notification's title: `[P2] [Triggered on {host:web-1}] CPU is high` — an optional priority, the
 * transition with the scope it happened on, then the monitor's name: the rest of the title after any white space,
 * on one line. The name is cut off by hand rather than by the pattern, whose `\s*(.*)$` would try every split of
 * a long run of white space before a second line.
 */
const monitorTitle = /^(?:\[(P[1-5])\]\s*)?\[(Triggered|Re-Triggered|Recovered|Warn|Re-Warn|No Data|Re-No Data|Renotify)(?: on ([^\]]*))?\]/i;
const lineTerminator = /[\n\r\u2028\u2029]/;

export function parseDatadogTitle(title: string) {
  const trimmed = title.trim();
  const match = monitorTitle.exec(trimmed);
  if (!match) return null;
  const monitor = trimmed.slice(match[0].length).trimStart();
  if (lineTerminator.test(monitor)) return null;
  return { priority: match[1] ?? null, transition: match[2]!.toLowerCase(), scope: match[3]?.trim() || null, monitor: monitor.trim() };
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
  return oneAlertEvent(
    {
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
    body,
  );
}

/**
 * Markdown links in the notification's text (`[Monitor Status](https://app.datadoghq.com/monitors/…)`). The URL stops
 * at a bracket or parenthesis and is at most 2,048 characters, so each attempt reads only up to the next one: the text
 * is read in one pass, whatever it holds.
 */
const markdownLink = /\[([^[\]\n]{1,100})\]\((https?:\/\/[^()[\]\s]{1,2048})\)/g;

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
    const links = [];
    for (const match of text.matchAll(markdownLink)) {
      links.push(...httpLink(match[1]!, match[2]));
      if (links.length === maxSourceLinks) break;
    }
    return links;
  },
};
