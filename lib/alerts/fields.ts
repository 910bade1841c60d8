/**
 * The alert fields a payload fills, with the payload types a custom mapping may use for each
 * (GitLab's `Gitlab::AlertManagement.alert_fields`). Pure, shared with the mapping UI.
 */
export const alertFields = [
  { name: "title", label: "Title", types: ["string"] },
  { name: "description", label: "Description", types: ["string"] },
  { name: "start_time", label: "Start time", types: ["datetime"] },
  { name: "end_time", label: "End time", types: ["datetime"] },
  { name: "service", label: "Service", types: ["string"] },
  { name: "monitoring_tool", label: "Monitoring tool", types: ["string"] },
  { name: "hosts", label: "Hosts", types: ["string", "array"] },
  { name: "severity", label: "Severity", types: ["string"] },
  { name: "fingerprint", label: "Fingerprint", types: ["string", "array"] },
  { name: "gitlab_environment_name", label: "Environment", types: ["string"] },
] as const;

export type AlertFieldName = (typeof alertFields)[number]["name"];
export type PayloadFieldType = "string" | "datetime" | "array";

export const alertSeverities = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

export const alertStatuses = ["triggered", "acknowledged", "resolved", "ignored"] as const;
export type AlertStatus = (typeof alertStatuses)[number];

export type PayloadPath = (string | number)[];

export interface MappedField {
  path: PayloadPath;
  type: PayloadFieldType;
  label?: string | null;
}

/** `payload_attribute_mapping` in GitLab's stored format: alert field → where to find it in the payload. */
export type PayloadAttributeMapping = Partial<Record<AlertFieldName, MappedField>>;
