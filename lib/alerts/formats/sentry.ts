import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseMappedTime, prometheusSeverity, truncate, type AlertAction } from "../normalize";
import { formatIdentity, httpLink, identifierValue, objectAt, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * The three shapes Sentry sends about an issue: an integration's issue alert (`event_alert`: `data.event`), an
 * integration's issue webhook (`issue`: `data.issue`), and the WebHooks plugin's alert (the issue at the top level).
 */
type SentryShape = "event_alert" | "issue" | "plugin";

function shapeOf(body: Record<string, unknown>): SentryShape | null {
  const data = objectAt(body, "data");
  const fromIntegration = typeof body.action === "string" && isPlainObject(body.actor);
  if (fromIntegration && isPlainObject(data.event) && Object.hasOwn(data, "triggered_rule")) return "event_alert";
  if (fromIntegration && isPlainObject(data.issue) && isPlainObject(body.installation)) return "issue";
  if ((typeof body.project_slug === "string" || typeof body.project === "string") && Object.hasOwn(body, "culprit") && isPlainObject(body.event) && typeof body.url === "string") {
    return "plugin";
  }
  return null;
}

/** An issue webhook opens (created, unresolved), closes (resolved), or leaves the alert be (assigned, ignored…). */
const issueActions: Record<string, AlertAction> = { created: "trigger", unresolved: "trigger", resolved: "resolve" };

function readSentry(body: Record<string, unknown>, now: Date): FormatReading {
  const shape = shapeOf(body);
  if (!shape) return { kind: "invalid", errors: ["The payload is not a Sentry issue alert or issue webhook."] };
  const data = objectAt(body, "data");
  const event = shape === "event_alert" ? objectAt(data, "event") : shape === "plugin" ? objectAt(body, "event") : {};
  const issue = shape === "issue" ? objectAt(data, "issue") : {};
  const action = shape === "issue" ? issueActions[body.action as string] : "trigger";
  if (!action) return { kind: "ignored", reason: `Sentry issue ${String(body.action)}` };
  // The issue groups its events, so it is the alert's identity in every shape.
  const issueId = identifierValue(event.issue_id) ?? identifierValue(issue.id) ?? (shape === "plugin" ? identifierValue(body.id) : null);
  const title = stringValue(event.title) ?? stringValue(issue.title) ?? stringValue(body.message) ?? defaultAlertTitle;
  const level = event.level ?? issue.level ?? body.level;
  return oneAlertEvent(
    {
      title: truncate(title, limits.title),
      description: nullableTruncate(event.culprit ?? issue.culprit ?? body.culprit, limits.description),
      startedAt: parseMappedTime(event.datetime ?? event.timestamp ?? issue.firstSeen) ?? now,
      endedAt: action === "resolve" ? now : null,
      service: nullableTruncate(body.project_name ?? objectAt(issue, "project").name, limits.service),
      monitoringTool: "Sentry",
      hosts: [],
      // Sentry's levels through GitLab's table: fatal is critical, error medium, warning low.
      severity: prometheusSeverity(level),
      environmentName: null,
      action,
      fingerprintSource: issueId ? formatIdentity("sentry", issueId) : null,
    },
    body,
  );
}

/**
 * Sentry: issue alerts from an internal integration or the WebHooks plugin fire; an integration's issue webhook also
 * resolves. Grouped by the Sentry issue; severity from the event's level; links to the event and issue in Sentry.
 */
export const sentryFormat: PayloadFormatDefinition = {
  id: "sentry",
  detect: (body) => shapeOf(body) !== null,
  read: readSentry,
  links(stored) {
    const data = objectAt(stored, "data");
    return [
      ...httpLink("Event in Sentry", objectAt(data, "event").web_url),
      ...httpLink("Issue in Sentry", objectAt(data, "issue").web_url),
      ...httpLink("Issue in Sentry", isPlainObject(stored) ? stored.url : undefined),
    ];
  },
};
