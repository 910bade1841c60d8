import { alertFields, alertSeverities, type AlertFieldName, type AlertSeverity, type MappedField, type PayloadAttributeMapping } from "./fields";
import { valueAtPath, type PayloadField } from "./payload-fields";

/**
 * A first mapping of a sample payload, for the Maintainer to accept or change field by field in the mapper: each
 * alert field takes the field of the sample whose key is the likeliest name for it (`title`, `name`, `summary` for
 * the title; `severity`, `priority`, `level` for the severity; …), of a type the alert field accepts, the nearer the
 * top the better, and no payload field serves two alert fields. A severity whose sample value is a word tools use for
 * a level (`crit`, `warning`, `P2`, `Disaster`…) comes with the value map to our severities. Pure, and linear in the
 * number of fields.
 */
export function suggestMapping(fields: readonly PayloadField[], sample: Record<string, unknown>): PayloadAttributeMapping {
  const taken = new Set<string>();
  const mapping: PayloadAttributeMapping = {};
  for (const field of alertFields) {
    const best = bestCandidate(field.name, field.types, fields, taken, sample);
    if (!best) continue;
    taken.add(JSON.stringify(best.path));
    const mapped: MappedField = { path: best.path, type: best.type, label: best.label };
    if (field.name === "severity") {
      const values = severityValues(valueAtPath(sample, best.path));
      if (values) mapped.values = values;
    }
    mapping[field.name] = mapped;
  }
  return mapping;
}

/**
 * The keys each alert field is known by, likeliest first, as the tools name them, written without case, `_` or `-`
 * (`startsAt`, `start_time` and `Start-Time` are one key). Title comes before description, so a payload's `summary`
 * or `message` titles the alert when nothing else does.
 */
const keyNames: Record<AlertFieldName, string[]> = {
  title: ["title", "alertname", "alerttitle", "name", "summary", "subject", "message", "eventname", "checkname", "problem", "event"],
  description: ["description", "details", "detail", "message", "text", "body", "summary", "annotation", "output", "reason"],
  start_time: ["starttime", "startsat", "startedat", "start", "firedat", "triggeredat", "eventtime", "timestamp", "time", "createdat", "date", "datetime"],
  end_time: ["endtime", "endsat", "endedat", "resolvedat", "recoveredat", "end", "closedat"],
  service: ["service", "servicename", "component", "app", "application", "job", "group"],
  monitoring_tool: ["monitoringtool", "tool", "source", "monitor", "generator", "origin", "integration"],
  hosts: ["hosts", "host", "hostname", "hostnames", "instance", "server", "node", "machine", "resource", "device"],
  severity: ["severity", "priority", "level", "urgency", "sev", "criticality"],
  fingerprint: ["fingerprint", "dedupkey", "alias", "groupkey", "alertid", "incidentid", "eventid", "problemid", "uid", "uuid", "id"],
  gitlab_environment_name: ["gitlabenvironmentname", "environment", "env", "environmentname", "stage"],
};

function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[_\-\s]/g, "");
}

/** The field's own key: the last key of its path (past any index or `[*]`). */
function lastKey(field: PayloadField): string | null {
  const key = field.path.findLast((segment) => typeof segment === "string");
  return typeof key === "string" ? key : null;
}

interface Candidate {
  field: PayloadField;
  /** Where its key stands in the alert field's names. */
  rank: number;
  depth: number;
  /** Through one element of an array (`items[0]/host`): one alert's worth, where `[*]` or no array reads them all. */
  indexed: boolean;
}

/** A number is a time only as seconds or milliseconds since 1970 from 2001 on: a `time` of 35 is a duration. */
const earliestEpochSeconds = 1_000_000_000;

function plausible(name: AlertFieldName, field: PayloadField, sample: Record<string, unknown>): boolean {
  if ((name === "start_time" || name === "end_time") && field.type === "number") {
    const value = valueAtPath(sample, field.path);
    return typeof value === "number" && value >= earliestEpochSeconds;
  }
  return true;
}

function bestCandidate(
  name: AlertFieldName,
  types: readonly string[],
  fields: readonly PayloadField[],
  taken: Set<string>,
  sample: Record<string, unknown>,
): PayloadField | null {
  const ranks = new Map(keyNames[name].map((key, rank) => [key, rank]));
  let best: Candidate | null = null;
  for (const field of fields) {
    if (!types.includes(field.type) || taken.has(JSON.stringify(field.path))) continue;
    const key = lastKey(field);
    const rank = key === null ? undefined : ranks.get(normalizedKey(key));
    if (rank === undefined || !plausible(name, field, sample)) continue;
    const candidate = { field, rank, depth: field.path.length, indexed: field.path.some((segment) => typeof segment === "number") };
    if (!best || compareCandidates(candidate, best) < 0) best = candidate;
  }
  return best?.field ?? null;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return Number(a.indexed) - Number(b.indexed) || a.rank - b.rank || a.depth - b.depth;
}

/** The words tools use for levels, as our severities; the severities' own names need no entry. */
const severityWords: Record<string, AlertSeverity> = {
  crit: "critical",
  fatal: "critical",
  emergency: "critical",
  emerg: "critical",
  alert: "critical",
  disaster: "critical",
  p1: "critical",
  sev1: "critical",
  s1: "critical",
  major: "high",
  error: "high",
  err: "high",
  p2: "high",
  sev2: "high",
  s2: "high",
  warning: "medium",
  warn: "medium",
  average: "medium",
  p3: "medium",
  sev3: "medium",
  s3: "medium",
  minor: "low",
  p4: "low",
  sev4: "low",
  s4: "low",
  information: "info",
  informational: "info",
  notice: "info",
  debug: "info",
  p5: "info",
  sev5: "info",
  s5: "info",
  notclassified: "unknown",
};

/** The value map the sample's severity needs: none when it is one of ours already, or a word nobody uses. */
function severityValues(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "string") return undefined;
  const word = normalizedKey(value.trim());
  if ((alertSeverities as readonly string[]).includes(word)) return undefined;
  const severity = severityWords[word];
  return severity ? { [value]: severity } : undefined;
}
