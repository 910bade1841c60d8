import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseTime, prometheusSeverity, text, truncate } from "../normalize";
import { createdAlertsAnswer, prometheusRuleLinks } from "./alertmanager";
import { formatIdentity, httpLink, identifierValue } from "./links";
import type { AlertEvent, PayloadFormatDefinition } from "./types";

/** Grafana's unified alerting webhook: Alertmanager's shape with `"version": "1"` and the organization's `orgId`. */
function isGrafanaPayload(body: Record<string, unknown>): boolean {
  return body.version === "1" && Object.hasOwn(body, "orgId") && Array.isArray(body.alerts);
}

/** Labels in a stable order: the identity of an alert that came without Grafana's fingerprint. */
function labelIdentity(labels: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function readGrafanaAlert(element: unknown, orgId: string | null, now: Date): AlertEvent | null {
  if (!isPlainObject(element)) return null;
  const labels = isPlainObject(element.labels) ? element.labels : {};
  const annotations = isPlainObject(element.annotations) ? element.annotations : {};
  const title = text(annotations.title) ?? text(annotations.summary) ?? text(labels.alertname) ?? defaultAlertTitle;
  const resolving = element.status === "resolved";
  return {
    alert: {
      title: truncate(title, limits.title),
      description: nullableTruncate(annotations.description, limits.description),
      startedAt: parseTime(element.startsAt) ?? now,
      endedAt: resolving ? (parseTime(element.endsAt) ?? now) : null,
      service: null,
      monitoringTool: "Grafana",
      hosts: [],
      severity: prometheusSeverity(labels.severity),
      environmentName: nullableTruncate(labels.gitlab_environment_name, limits.environment),
      action: resolving ? "resolve" : "trigger",
      // Grafana's fingerprint is the hash of the alert's labels: the same while it fires and when it resolves.
      fingerprintSource: formatIdentity("grafana", orgId, identifierValue(element.fingerprint) ?? labelIdentity(labels)),
    },
    payload: element,
  };
}

/**
 * Grafana unified alerting: one alert per element of `alerts`, firing or resolved by its `status`, grouped by Grafana's
 * per-alert fingerprint; severity from the `severity` label as for Prometheus; links to the rule, dashboard and panel.
 */
export const grafanaFormat: PayloadFormatDefinition = {
  id: "grafana",
  detect: isGrafanaPayload,
  read(body, now) {
    if (!isGrafanaPayload(body)) return { kind: "invalid", errors: ['The payload is not a Grafana alerting webhook ("version": "1" with "orgId" and "alerts").'] };
    const orgId = identifierValue(body.orgId);
    const events = (body.alerts as unknown[]).flatMap((element) => readGrafanaAlert(element, orgId, now) ?? []);
    return { kind: "events", events };
  },
  links(element) {
    const alert = isPlainObject(element) ? element : {};
    return [
      ...prometheusRuleLinks(alert),
      ...httpLink("Dashboard", alert.dashboardURL),
      ...httpLink("Panel", alert.panelURL),
      ...httpLink("Silence", alert.silenceURL),
    ];
  },
  answer: createdAlertsAnswer,
};
