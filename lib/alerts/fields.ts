/**
 * The alert fields a payload fills, with the payload types a custom mapping may use for each
 * (GitLab's `Gitlab::AlertManagement.alert_fields`). Pure, shared with the mapping UI.
 */
export const alertFields = [
  { name: "title", label: "Title", types: ["string"] },
  { name: "description", label: "Description", types: ["string"] },
  { name: "start_time", label: "Start time", types: ["datetime", "number"] },
  { name: "end_time", label: "End time", types: ["datetime", "number"] },
  { name: "service", label: "Service", types: ["string"] },
  { name: "monitoring_tool", label: "Monitoring tool", types: ["string"] },
  { name: "hosts", label: "Hosts", types: ["string", "array"] },
  { name: "severity", label: "Severity", types: ["string", "number"] },
  { name: "fingerprint", label: "Fingerprint", types: ["string", "array"] },
  { name: "gitlab_environment_name", label: "Environment", types: ["string"] },
] as const;

export type AlertFieldName = (typeof alertFields)[number]["name"];
export type PayloadFieldType = "string" | "datetime" | "number" | "array";

export const alertSeverities = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

export const alertStatuses = ["triggered", "acknowledged", "resolved", "ignored"] as const;
export type AlertStatus = (typeof alertStatuses)[number];

/**
 * A path segment standing for every element of an array: `["items", {each: true}, "host"]` reads the `host` of each
 * item. An object, so no payload key (not even `"*"`) can be mistaken for it.
 */
export interface EachElement {
  each: true;
}
export const eachElement: EachElement = { each: true };

export type PathSegment = string | number | EachElement;
export type PayloadPath = PathSegment[];

export function isEachElement(segment: PathSegment): segment is EachElement {
  return typeof segment === "object";
}

export interface MappedField {
  path: PayloadPath;
  type: PayloadFieldType;
  label?: string | null;
  /** Payload value → alert value, applied before the field's own parsing (for severity the values are severities). */
  values?: Record<string, string>;
  /** Used when the path finds nothing or a blank value. */
  fallback?: string;
}

/**
 * `payload_attribute_mapping`: alert field → where to find it in the payload. GitLab's stored format (path, type,
 * label) is a valid mapping; `values`, `fallback`, numbers and `{each: true}` segments extend it.
 */
export type PayloadAttributeMapping = Partial<Record<AlertFieldName, MappedField>>;
