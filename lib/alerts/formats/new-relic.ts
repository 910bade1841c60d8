import type { AlertSeverity } from "../fields";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, hostList, limits, nullableTruncate, parseMappedTime, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * New Relic's workflow webhook with its default payload template: `{ id, issueUrl, title, priority,
 * impactedEntities, totalIncidents, state, trigger, isCorrelated, createdAt, updatedAt, sources, alertPolicyNames,
 * alertConditionNames, workflowName }`, `state` CREATED, ACTIVATED or CLOSED
 * (https://docs.newrelic.com/docs/alerts/get-notified/notification-integrations/#webhook).
 */
const templateKeys = ["id", "issueUrl", "title", "priority", "state", "trigger", "createdAt"];

function isNewRelicIssue(body: Record<string, unknown>): boolean {
  return templateKeys.every((key) => Object.hasOwn(body, key)) && identifierValue(body.id) !== null && typeof body.state === "string";
}

const newRelicPriorities: Record<string, AlertSeverity> = { critical: "critical", high: "high", medium: "medium", low: "low" };

function readNewRelic(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isNewRelicIssue(body)) return { kind: "invalid", errors: ["The payload is not a New Relic workflow webhook with the default template (id, issueUrl, title, priority, state, trigger, createdAt)."] };
  const state = String(body.state).toUpperCase();
  // An issue is CREATED, then ACTIVATED (incidents joined it), then CLOSED; ACKNOWLEDGED is shown, not acted on.
  if (state !== "CREATED" && state !== "ACTIVATED" && state !== "CLOSED") return { kind: "ignored", reason: `New Relic issue ${state}` };
  const resolving = state === "CLOSED";
  const title = Array.isArray(body.title) ? body.title.find((part) => typeof part === "string") : body.title;
  const priority = typeof body.priority === "string" ? newRelicPriorities[body.priority.trim().toLowerCase()] : undefined;
  const conditions = Array.isArray(body.alertConditionNames) ? body.alertConditionNames.filter((name) => typeof name === "string") : [];
  const policies = Array.isArray(body.alertPolicyNames) ? body.alertPolicyNames.filter((name) => typeof name === "string") : [];
  return oneAlertEvent(
    {
      title: truncate(stringValue(title) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(conditions.length ? conditions.join(", ") : null, limits.description),
      startedAt: parseMappedTime(body.createdAt) ?? now,
      endedAt: resolving ? (parseMappedTime(body.updatedAt) ?? now) : null,
      service: nullableTruncate(policies[0] ?? null, limits.service),
      monitoringTool: "New Relic",
      hosts: hostList(body.impactedEntities),
      severity: priority ?? "critical",
      environmentName: null,
      action: resolving ? "resolve" : "trigger",
      fingerprintSource: formatIdentity("new_relic", identifierValue(body.id)),
    },
    body,
  );
}

/** New Relic workflows: an issue created or activated fires, closed resolves; grouped by the issue; links to it. */
export const newRelicFormat: PayloadFormatDefinition = {
  id: "new_relic",
  detect: isNewRelicIssue,
  read: readNewRelic,
  links: (stored) => httpLink("Issue in New Relic", isPlainObject(stored) ? stored.issueUrl : undefined),
};
