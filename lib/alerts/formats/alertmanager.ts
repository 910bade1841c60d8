import { isPlainObject } from "../json-values";
import { isAlertmanagerPayload, normalizePrometheusAlert } from "../normalize";
import { httpLink, objectAt } from "./links";
import type { AlertEvent, FormatAnswer, PayloadFormatDefinition, RecordedAlert, SourceLink } from "./types";

/** The links an Alertmanager-style alert carries: the rule that generated it and its runbook. */
export function prometheusRuleLinks(element: unknown): SourceLink[] {
  const alert = isPlainObject(element) ? element : {};
  return [...httpLink("Alert rule", alert.generatorURL), ...httpLink("Runbook", objectAt(alert, "annotations").runbook_url)];
}

/** Alertmanager-style senders get the alerts they opened or changed, with 201 (as GitLab answers Alertmanager). */
export function createdAlertsAnswer(recorded: (RecordedAlert | null)[]): FormatAnswer {
  return { status: 201, body: recorded.filter((alert) => alert !== null) };
}

/**
 * Prometheus Alertmanager's webhook (version 4): one alert per element of `alerts`, resolved by `status`, grouped by
 * GitLab's Prometheus fingerprint (start time, title and the rule's query), severity from the `severity` label.
 */
export const alertmanagerFormat: PayloadFormatDefinition = {
  id: "alertmanager",
  detect: isAlertmanagerPayload,
  read(body, now) {
    if (!isAlertmanagerPayload(body)) return { kind: "invalid", errors: ["The payload is not an Alertmanager webhook (version 4)."] };
    const events: AlertEvent[] = [];
    for (const element of body.alerts as unknown[]) {
      const alert = normalizePrometheusAlert(element, now);
      if (alert) events.push({ alert, payload: element });
    }
    return { kind: "events", events };
  },
  links: prometheusRuleLinks,
  answer: createdAlertsAnswer,
};
