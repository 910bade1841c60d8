import type { AlertSeverity } from "../fields";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, parseMappedTime, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, objectAt, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Google Cloud Monitoring's webhook notification channel, schema version 1.2: `{ incident: {…}, version: "1.2" }`,
 * the incident `open` or `closed` (https://cloud.google.com/monitoring/support/notification-options#schema-webhook).
 */
function isCloudMonitoringIncident(body: Record<string, unknown>): boolean {
  const incident = body.incident;
  return typeof body.version === "string" && isPlainObject(incident) && identifierValue(incident.incident_id) !== null && typeof incident.state === "string";
}

/** The policy's severity levels (Critical, Error, Warning), and "no severity" for a policy that sets none. */
const cloudSeverities: Record<string, AlertSeverity> = { critical: "critical", error: "high", warning: "low" };

function readCloudMonitoring(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isCloudMonitoringIncident(body)) return { kind: "invalid", errors: ["The payload is not a Google Cloud Monitoring incident (webhook schema 1.2)."] };
  const incident = objectAt(body, "incident");
  const state = String(incident.state).toLowerCase();
  if (state !== "open" && state !== "closed") return { kind: "ignored", reason: `Cloud Monitoring incident ${state}` };
  const resolving = state === "closed";
  const severity = typeof incident.severity === "string" ? cloudSeverities[incident.severity.trim().toLowerCase()] : undefined;
  const host = stringValue(incident.resource_display_name) ?? stringValue(incident.resource_name);
  return oneAlertEvent(
    {
      title: truncate(stringValue(objectAt(incident, "documentation").subject) ?? stringValue(incident.policy_name) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(stringValue(incident.summary) ?? stringValue(incident.condition_name), limits.description),
      startedAt: parseMappedTime(incident.started_at) ?? now,
      endedAt: resolving ? (parseMappedTime(incident.ended_at) ?? now) : null,
      service: nullableTruncate(stringValue(incident.resource_type_display_name), limits.service),
      monitoringTool: "Google Cloud Monitoring",
      hosts: host ? [truncate(host, limits.hosts, "")] : [],
      // "no severity" (the policy set none) reads as GitLab's default for an alert that names none.
      severity: severity ?? "critical",
      environmentName: null,
      action: resolving ? "resolve" : "trigger",
      fingerprintSource: formatIdentity("google_cloud", identifierValue(incident.incident_id)),
    },
    body,
  );
}

/** Google Cloud Monitoring: an incident opens and closes the alert; grouped by the incident; links to it in the console. */
export const googleCloudFormat: PayloadFormatDefinition = {
  id: "google_cloud",
  detect: isCloudMonitoringIncident,
  read: readCloudMonitoring,
  links: (stored) => httpLink("Incident in Cloud Monitoring", objectAt(stored, "incident").url),
};
