import {
  alertSeverities,
  type AlertFieldName,
  type AlertSeverity,
  type PayloadAttributeMapping,
  type PayloadPath,
} from "./fields";
import { isBlank, isPlainObject } from "./json-values";
import { valueAtPath } from "./payload-fields";

export type AlertAction = "trigger" | "acknowledge" | "resolve";

/** An alert as a payload describes it, before it meets the database. */
export interface NormalizedAlert {
  title: string;
  description: string | null;
  startedAt: Date;
  endedAt: Date | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  severity: AlertSeverity;
  environmentName: string | null;
  /**
   * What the payload says happened: a trigger opens an alert (or counts one more event on the open one it matches);
   * an acknowledgement or a resolution changes the open alert it matches instead of opening one.
   */
  action: AlertAction;
  /** What the fingerprint is the SHA-1 of; null when the alert cannot be grouped. */
  fingerprintSource: unknown;
}

export const defaultAlertTitle = "New: Alert";
/** Lengths GitLab gives these alert fields (an environment name, like GitLab's environments, at most 255). */
export const limits = { title: 200, description: 1000, service: 100, monitoringTool: 100, hosts: 255, environment: 255 } as const;

/** ActiveSupport's `String#truncate`: at most `limit` characters, ending in "..." when cut. */
export function truncate(text: string, limit: number, omission = "..."): string {
  if (text.length <= limit) return text;
  return text.slice(0, Math.max(0, limit - omission.length)) + omission;
}

export function text(value: unknown): string | null {
  if (isBlank(value)) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

export function parseTime(value: unknown): Date | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** `end_time` also accepts epoch milliseconds: an integer of exactly 13 digits. */
function parseTimeWithEpochMillis(value: unknown): Date | null {
  if (typeof value === "number" && Number.isInteger(value) && String(Math.abs(value)).length === 13) return new Date(value);
  return parseTime(value);
}

/** GitLab keeps whole hosts while they fit in 255 characters, then cuts the last one to fit, without "...". */
export function truncateHosts(hosts: string[]): string[] {
  if (hosts.join("").length <= limits.hosts) return hosts;
  const kept: string[] = [];
  for (const host of hosts) {
    const remaining = limits.hosts - kept.join("").length;
    if (remaining <= 0) break;
    kept.push(truncate(host, remaining, ""));
  }
  return kept;
}

/** Hosts are the list's text and numbers; objects in it (a mapped array of objects) are not hosts. */
export function hostList(value: unknown): string[] {
  if (isBlank(value)) return [];
  const list = (Array.isArray(value) ? value.flat(Infinity) : [value])
    .filter((host) => !isBlank(host) && !isPlainObject(host))
    .map((host) => text(host)!);
  return truncateHosts(list);
}

/** Generic payloads: the six documented severities in any case; anything else is critical. */
export function genericSeverity(value: unknown): AlertSeverity {
  const normalized = typeof value === "string" ? value.trim().toLowerCase() : "";
  return (alertSeverities as readonly string[]).includes(normalized) ? (normalized as AlertSeverity) : "critical";
}

const prometheusSeverities: Record<string, AlertSeverity> = {};
for (const [severity, aliases] of Object.entries({
  critical: ["critical", "s1", "p1", "emergency", "fatal"],
  high: ["high", "s2", "p2", "major", "page"],
  medium: ["medium", "s3", "p3", "error", "alert"],
  low: ["low", "s4", "p4", "warn", "warning", "minor"],
  info: ["info", "s5", "p5", "debug", "information", "notice"],
})) {
  for (const alias of aliases) prometheusSeverities[alias] = severity as AlertSeverity;
}

/** Prometheus labels: GitLab's synonym table (`warning` is low, `page` is high); anything else is critical. */
export function prometheusSeverity(value: unknown): AlertSeverity {
  return (typeof value === "string" && prometheusSeverities[value.trim().toLowerCase()]) || "critical";
}

const defaultPaths: Record<AlertFieldName, PayloadPath> = {
  title: ["title"],
  description: ["description"],
  start_time: ["start_time"],
  end_time: ["end_time"],
  service: ["service"],
  monitoring_tool: ["monitoring_tool"],
  hosts: ["hosts"],
  severity: ["severity"],
  fingerprint: ["fingerprint"],
  gitlab_environment_name: ["gitlab_environment_name"],
};

/** Fields excluded from the automatic fingerprint because they change between repeats of one alert. */
const volatileFields = new Set(["start_time", "end_time", "hosts"]);

/**
 * Below this a mapped epoch number is seconds, from it on milliseconds: 1e11 seconds is the year 5138, while 1e11
 * milliseconds is March 1973, so no time an alert can carry is ambiguous.
 */
export const epochMillisecondsFrom = 1e11;
const epochNumber = /^-?\d+(\.\d+)?$/;

/**
 * A mapped time: an epoch number (or numeric string) in seconds or milliseconds by magnitude, or an ISO 8601 string.
 * Standard keys keep GitLab's parsing, so unmapped payloads are read exactly as GitLab reads them.
 */
export function parseMappedTime(value: unknown): Date | null {
  const epoch = typeof value === "number" ? value : typeof value === "string" && epochNumber.test(value.trim()) ? Number(value) : null;
  if (epoch === null) return parseTime(value);
  if (!Number.isFinite(epoch)) return null;
  const time = new Date(Math.abs(epoch) < epochMillisecondsFrom ? epoch * 1000 : epoch);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** Where a field's value came from, so the preview can say why a field is empty or defaulted. */
export interface FieldReading {
  source: "mapping" | "fallback" | "standard" | "default";
  /** The mapped path, when the field is mapped. */
  path: PayloadPath | null;
  /** What the mapped path found, before the value map. */
  found: unknown;
  /** The payload values the value map replaced, with what they became. */
  replaced: [from: string, to: string][];
}

export type FieldReadings = Record<AlertFieldName, FieldReading>;

/** The value map applies to each scalar (each element of a list); values it does not name pass unchanged. */
function applyValueMap(value: unknown, values: Record<string, string>, replaced: [string, string][]): unknown {
  if (Array.isArray(value)) return value.map((item) => applyValueMap(item, values, replaced));
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return value;
  const key = String(value).trim();
  if (!Object.hasOwn(values, key)) return value;
  replaced.push([key, values[key]!]);
  return values[key];
}

/**
 * A generic (HTTP endpoint) payload, read through the integration's custom mapping when it has one: a mapped field
 * takes the value at its path (through its value map), else its fallback, else the field's standard key, else the
 * default. The receiver and the mapper's preview both call this, so a stored alert is what the preview showed.
 */
export function readGenericPayload(
  payload: Record<string, unknown>,
  mapping: PayloadAttributeMapping | null,
  now: Date,
): { alert: NormalizedAlert; readings: FieldReadings } {
  const readings = {} as FieldReadings;
  const read = (field: AlertFieldName): unknown => {
    const mapped = mapping?.[field];
    const reading: FieldReading = { source: "default", path: mapped?.path ?? null, found: undefined, replaced: [] };
    readings[field] = reading;
    if (mapped) {
      reading.found = valueAtPath(payload, mapped.path);
      const value = mapped.values ? applyValueMap(reading.found, mapped.values, reading.replaced) : reading.found;
      if (!isBlank(value)) {
        reading.source = "mapping";
        return value;
      }
      if (mapped.fallback !== undefined && !isBlank(mapped.fallback)) {
        reading.source = "fallback";
        return mapped.fallback;
      }
    }
    const standard = valueAtPath(payload, defaultPaths[field]);
    if (!isBlank(standard)) reading.source = "standard";
    return standard;
  };
  const readTime = (field: "start_time" | "end_time", standardParse: (value: unknown) => Date | null) => {
    const value = read(field);
    return readings[field].source === "standard" ? standardParse(value) : parseMappedTime(value);
  };

  const endedAt = readTime("end_time", parseTimeWithEpochMillis);
  const explicitFingerprint = read("fingerprint");
  const automaticSource = Object.fromEntries(Object.entries(payload).filter(([key]) => !volatileFields.has(key)));
  const alert: NormalizedAlert = {
    title: truncate(text(read("title")) ?? defaultAlertTitle, limits.title),
    description: nullableTruncate(read("description"), limits.description),
    startedAt: readTime("start_time", parseTime) ?? now,
    endedAt,
    service: nullableTruncate(read("service"), limits.service),
    monitoringTool: nullableTruncate(read("monitoring_tool"), limits.monitoringTool),
    hosts: hostList(read("hosts")),
    severity: genericSeverity(read("severity")),
    environmentName: nullableTruncate(read("gitlab_environment_name"), limits.environment),
    action: endedAt !== null ? "resolve" : "trigger",
    fingerprintSource: !isBlank(explicitFingerprint) ? explicitFingerprint : isBlank(automaticSource) ? null : automaticSource,
  };
  return { alert, readings };
}

/** The alert a generic payload opens (see `readGenericPayload`). */
export function normalizeGenericPayload(
  payload: Record<string, unknown>,
  mapping: PayloadAttributeMapping | null,
  now: Date,
): NormalizedAlert {
  return readGenericPayload(payload, mapping, now).alert;
}

export function nullableTruncate(value: unknown, limit: number): string | null {
  const asText = text(value);
  return asText === null ? null : truncate(asText, limit);
}

const alertmanagerKeys = [
  "version",
  "groupKey",
  "status",
  "receiver",
  "groupLabels",
  "commonLabels",
  "commonAnnotations",
  "externalURL",
  "alerts",
] as const;

/** An Alertmanager webhook body (version "4" with all nine top-level keys): one alert per element of `alerts`. */
export function isAlertmanagerPayload(body: Record<string, unknown>): boolean {
  return alertmanagerKeys.every((key) => Object.hasOwn(body, key)) && body.version === "4" && Array.isArray(body.alerts);
}

function prometheusQuery(generatorUrl: unknown): string {
  if (typeof generatorUrl !== "string") return "";
  try {
    return new URL(generatorUrl).searchParams.get("g0.expr") ?? "";
  } catch {
    return "";
  }
}

/** One element of an Alertmanager webhook's `alerts`, or null when it lacks a title or `startsAt`. */
export function normalizePrometheusAlert(alert: unknown, now: Date): NormalizedAlert | null {
  if (!isPlainObject(alert)) return null;
  const labels = isPlainObject(alert.labels) ? alert.labels : {};
  const annotations = isPlainObject(alert.annotations) ? alert.annotations : {};
  const title = text(annotations.title) ?? text(annotations.summary) ?? text(labels.alertname);
  const startsAt = text(alert.startsAt);
  if (!title || !startsAt) return null;
  const resolving = alert.status === "resolved";
  return {
    title: truncate(title, limits.title),
    description: nullableTruncate(annotations.description, limits.description),
    startedAt: parseTime(startsAt) ?? now,
    endedAt: resolving ? (parseTime(alert.endsAt) ?? now) : null,
    service: null,
    monitoringTool: "Prometheus",
    hosts: [],
    severity: prometheusSeverity(labels.severity),
    environmentName: nullableTruncate(labels.gitlab_environment_name, limits.environment),
    action: resolving ? "resolve" : "trigger",
    fingerprintSource: `${startsAt}/${title}/${prometheusQuery(alert.generatorURL)}`,
  };
}
