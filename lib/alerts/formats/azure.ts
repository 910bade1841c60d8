import type { AlertSeverity } from "../fields";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, hostList, limits, nullableTruncate, parseTime, prometheusSeverity, truncate } from "../normalize";
import { formatIdentity, httpLink, maxSourceLinks, objectAt, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition, SourceLink } from "./types";

/** Azure's five levels onto ours: Sev0 is critical, Sev4 informational. */
const azureSeverities: Record<string, AlertSeverity> = { sev0: "critical", sev1: "high", sev2: "medium", sev3: "low", sev4: "info" };

export function azureSeverity(value: unknown): AlertSeverity {
  const key = typeof value === "string" ? value.trim().toLowerCase() : "";
  return azureSeverities[key] ?? prometheusSeverity(value);
}

function isAzureCommonAlert(body: Record<string, unknown>): boolean {
  return body.schemaId === "azureMonitorCommonAlertSchema" && isPlainObject(objectAt(body, "data").essentials);
}

function readAzureAlert(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isAzureCommonAlert(body)) return { kind: "invalid", errors: ['The payload is not an Azure Monitor alert in the common alert schema ("schemaId": "azureMonitorCommonAlertSchema").'] };
  const essentials = objectAt(objectAt(body, "data"), "essentials");
  const condition = essentials.monitorCondition;
  if (condition !== "Fired" && condition !== "Resolved") {
    return { kind: "invalid", errors: ["'data.essentials.monitorCondition' must be Fired or Resolved"] };
  }
  // The monitoring service's identity of the condition: the same in the Fired and the Resolved notification.
  const identity = stringValue(essentials.originAlertId) ?? stringValue(essentials.alertId);
  const resolving = condition === "Resolved";
  return oneAlertEvent(
    {
      title: truncate(stringValue(essentials.alertRule) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(stringValue(essentials.description), limits.description),
      startedAt: parseTime(essentials.firedDateTime) ?? now,
      endedAt: resolving ? (parseTime(essentials.resolvedDateTime) ?? now) : null,
      service: nullableTruncate(essentials.monitoringService, limits.service),
      monitoringTool: "Azure Monitor",
      hosts: hostList(essentials.configurationItems),
      severity: azureSeverity(essentials.severity),
      environmentName: null,
      action: resolving ? "resolve" : "trigger",
      fingerprintSource: identity ? formatIdentity("azure", identity) : null,
    },
    body,
  );
}

/** Log search alerts link to their query's results from each condition. */
function searchResultLinks(alertContext: Record<string, unknown>): SourceLink[] {
  const conditions = objectAt(alertContext, "condition").allOf;
  if (!Array.isArray(conditions)) return [];
  return conditions.slice(0, maxSourceLinks).flatMap((condition) =>
    isPlainObject(condition)
      ? [...httpLink("Search results", condition.linkToFilteredSearchResultsUI), ...httpLink("All search results", condition.linkToSearchResultsUI)]
      : [],
  );
}

/**
 * Azure Monitor's common alert schema: `essentials.monitorCondition` Fired or Resolved, grouped by `originAlertId`,
 * `Sev0`…`Sev4` as critical…info; links to the alert and the affected resources in the Azure portal.
 */
export const azureFormat: PayloadFormatDefinition = {
  id: "azure",
  detect: isAzureCommonAlert,
  read: readAzureAlert,
  links(stored) {
    const data = objectAt(stored, "data");
    const essentials = objectAt(data, "essentials");
    const alertId = stringValue(essentials.alertId);
    const targets = Array.isArray(essentials.alertTargetIDs) ? essentials.alertTargetIDs.slice(0, maxSourceLinks) : [];
    return [
      ...(alertId?.startsWith("/") ? httpLink("Alert in the Azure portal", `https://portal.azure.com/#view/Microsoft_Azure_Monitoring_Alerts/AlertDetails.ReactView/alertId~/${encodeURIComponent(alertId)}`) : []),
      ...targets.flatMap((target) => (typeof target === "string" && target.startsWith("/") ? httpLink("Affected resource", `https://portal.azure.com/#resource${target}`) : [])),
      ...searchResultLinks(objectAt(data, "alertContext")),
    ];
  },
};
