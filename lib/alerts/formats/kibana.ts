import { isPlainObject } from "../json-values";
import { defaultAlertTitle, genericSeverity, hostList, limits, nullableTruncate, parseTime, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Elastic (Kibana alerting), through the webhook connector with the body the README gives: the rule's and the alert's
 * identity, `action_group` (the rule's own group when it fires, `recovered` when the alert recovers), the reason, the
 * date and the alert's details URL, with an optional `severity` and `hosts` the rule's action may set.
 */
const requiredKeys = ["rule_id", "rule_name", "alert_id", "action_group"];

function isKibanaAction(body: Record<string, unknown>): boolean {
  return requiredKeys.every((key) => typeof body[key] === "string") && identifierValue(body.rule_id) !== null;
}

function readKibana(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isKibanaAction(body)) return { kind: "invalid", errors: ["The payload is not a Kibana rule action from the documented webhook body (rule_id, rule_name, alert_id, action_group)."] };
  const recovered = String(body.action_group).trim().toLowerCase() === "recovered";
  const date = parseTime(body.date);
  return oneAlertEvent(
    {
      title: truncate(stringValue(body.rule_name) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(stringValue(body.reason), limits.description),
      startedAt: (recovered ? null : date) ?? now,
      endedAt: recovered ? (date ?? now) : null,
      service: nullableTruncate(stringValue(body.service), limits.service),
      monitoringTool: "Elastic",
      hosts: hostList(body.hosts),
      // What the action says (GitLab's six severities); a rule that sets none gives GitLab's default.
      severity: genericSeverity(body.severity),
      environmentName: null,
      action: recovered ? "resolve" : "trigger",
      // One rule raises an alert per group it watches (a host, a service): the rule and the alert's id together.
      fingerprintSource: formatIdentity("kibana", identifierValue(body.rule_id), identifierValue(body.alert_id)),
    },
    body,
  );
}

/** Elastic: a rule's action fires, its recovery resolves; grouped by rule and alert; links to the alert in Kibana. */
export const kibanaFormat: PayloadFormatDefinition = {
  id: "kibana",
  detect: isKibanaAction,
  read: readKibana,
  links: (stored) => httpLink("Alert in Kibana", isPlainObject(stored) ? stored.url : undefined),
};
