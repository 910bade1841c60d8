import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Grafana OnCall's Formatted Webhook integration: `{ alert_uid, title, message, state, image_url,
 * link_to_upstream_details }`, `state` "alerting" or "ok". Teams leaving OnCall point what sent to it here unchanged.
 */
const states = { alerting: "trigger", ok: "resolve" } as const;

function isFormattedWebhook(body: Record<string, unknown>): boolean {
  return identifierValue(body.alert_uid) !== null && typeof body.title === "string" && typeof body.state === "string" && Object.hasOwn(states, body.state);
}

function readFormattedWebhook(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isFormattedWebhook(body)) {
    return { kind: "invalid", errors: ['The payload is not a Grafana OnCall formatted webhook (alert_uid, title, and state "alerting" or "ok").'] };
  }
  const action = states[body.state as keyof typeof states];
  return oneAlertEvent(
    {
      title: truncate(stringValue(body.title) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(body.message, limits.description),
      startedAt: now,
      endedAt: action === "resolve" ? now : null,
      service: null,
      monitoringTool: "Grafana OnCall",
      hosts: [],
      // The format carries no severity: GitLab's default for an alert that names none.
      severity: "critical",
      environmentName: null,
      action,
      fingerprintSource: formatIdentity("grafana_oncall", identifierValue(body.alert_uid)),
    },
    body,
  );
}

/** Grafana OnCall's formatted webhook: `alerting` fires, `ok` resolves; grouped by `alert_uid`. */
export const grafanaOnCallFormat: PayloadFormatDefinition = {
  id: "grafana_oncall",
  detect: isFormattedWebhook,
  read: readFormattedWebhook,
  links: (stored) => httpLink("Details", isPlainObject(stored) ? stored.link_to_upstream_details : undefined),
};
