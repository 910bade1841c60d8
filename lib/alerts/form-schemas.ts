import { z } from "zod";
import { alertStatuses } from "./fields";
import { payloadFormatSettings } from "./formats/types";
import { payloadAttributeMappingSchema } from "./schemas";
import { weekdays } from "./silence-rules";
import type { SilenceInput } from "./silences";

/** The integration types the form offers (the same as the database's; repeated so this module stays pure). */
export const integrationTypeOptions = [
  { value: "http", label: "HTTP Endpoint", short: "HTTP" },
  { value: "prometheus", label: "Prometheus", short: "Prometheus" },
  { value: "heartbeat", label: "Heartbeat (alert when pings stop)", short: "Heartbeat" },
] as const;

/** The heartbeat settings people may choose: an interval from a minute to a week, and a grace period up to a week. */
export const heartbeatLimits = {
  intervalSeconds: { min: 60, max: 7 * 24 * 60 * 60 },
  graceSeconds: { min: 0, max: 7 * 24 * 60 * 60 },
} as const;

/** A number of seconds within `range`; the form reads an empty field as no value. */
const optionalSeconds = (range: { min: number; max: number }, label: string) =>
  z
    .number(`${label} must be a number of seconds`)
    .int(`${label} must be a whole number of seconds`)
    .min(range.min, `${label} must be at least ${range.min} seconds`)
    .max(range.max, `${label} must be at most ${range.max} seconds`)
    .optional();

/** The "Configure details" form of an integration. Pure: the client form and the server action share it. */
const integrationDetailsFields = z.object({
  type: z.enum(["http", "prometheus", "heartbeat"]),
  name: z.string().trim().min(1, "Name can't be blank").max(255, "Name is too long (maximum is 255 characters)"),
  active: z.boolean(),
  payloadFormat: z.enum(payloadFormatSettings),
  heartbeatIntervalSeconds: optionalSeconds(heartbeatLimits.intervalSeconds, "Interval"),
  heartbeatGraceSeconds: optionalSeconds(heartbeatLimits.graceSeconds, "Grace period"),
});

/** A heartbeat needs its interval; the other types take no heartbeat settings (the server refuses them). */
function heartbeatHasInterval(details: { type: string; heartbeatIntervalSeconds?: number }): boolean {
  return details.type !== "heartbeat" || details.heartbeatIntervalSeconds !== undefined;
}
const intervalRequired = { message: "Interval can't be blank", path: ["heartbeatIntervalSeconds"] };

export const integrationDetailsSchema = integrationDetailsFields.refine(heartbeatHasInterval, intervalRequired);
export type IntegrationDetails = z.infer<typeof integrationDetailsSchema>;

/** What the settings page saves: the details, and the sample payload with its mapping when one was built. */
const integrationSaveFields = integrationDetailsFields.extend({
  payloadExample: z.string().max(1024 * 1024).optional(),
  payloadAttributeMapping: payloadAttributeMappingSchema.optional(),
});
export const integrationSaveSchema = integrationSaveFields.refine(heartbeatHasInterval, intervalRequired);
export type IntegrationSave = z.infer<typeof integrationSaveSchema>;
/** What saving an existing integration takes: its type stays. */
export const integrationUpdateSchema = integrationSaveFields.omit({ type: true });

export const alertSettingsFormSchema = z.object({
  createIncident: z.boolean(),
  sendEmail: z.boolean(),
  autoCloseIncident: z.boolean(),
});
export type AlertSettingsForm = z.infer<typeof alertSettingsFormSchema>;

/** The statuses people pick from in the alert list (GitLab offers no "Ignored" there). */
export const triageStatuses = ["triggered", "acknowledged", "resolved"] as const;
export const alertStatusSchema = z.enum(alertStatuses);

/** The alert page's assignee field: a username (a leading `@` is dropped, as people type it), or empty to unassign. */
export const alertAssigneeUsernameSchema = z
  .string()
  .trim()
  .max(255, "Username is too long (maximum is 255 characters)")
  .transform((value) => value.replace(/^@/, ""));

export const alertStatusLabels = {
  triggered: "Triggered",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  ignored: "Ignored",
} as const;

export const alertSeverityLabels = {
  critical: "Critical",
  high: "High",
  medium: "Medium",
  low: "Low",
  info: "Info",
  unknown: "Unknown",
} as const;

/** The list's tabs: which statuses each shows (GitLab's; "All alerts" leaves ignored ones out). */
export const alertListTabs = [
  { key: "open", label: "Open", statuses: ["triggered", "acknowledged"] },
  { key: "triggered", label: "Triggered", statuses: ["triggered"] },
  { key: "acknowledged", label: "Acknowledged", statuses: ["acknowledged"] },
  { key: "resolved", label: "Resolved", statuses: ["resolved"] },
  { key: "all", label: "All alerts", statuses: ["triggered", "acknowledged", "resolved"] },
] as const;
export type AlertListTab = (typeof alertListTabs)[number]["key"];

export const alertListSortOptions = [
  { value: "started_at_desc", label: "Start time, newest first" },
  { value: "started_at_asc", label: "Start time, oldest first" },
  { value: "severity_desc", label: "Severity, most severe first" },
  { value: "event_count_desc", label: "Events, most first" },
] as const;

/** The snooze choices of the alert page: minutes, until the alert resolves, or 0 to end the snooze. */
export const alertSnoozeOptions = [
  { value: 30, label: "30 minutes" },
  { value: 60, label: "1 hour" },
  { value: 240, label: "4 hours" },
  { value: 1440, label: "1 day" },
  { value: 10_080, label: "1 week" },
  { value: "until_resolved", label: "Until resolved" },
] as const;
export const alertSnoozeSchema = z.union([z.literal("until_resolved"), z.literal(0), z.number().int().min(30).max(10_080)]);

/**
 * The silences page's form: matchers one a line, then a one-off window (instants the browser computed from its
 * local time; no start means now) or a weekly one. The verb checks the matchers and the window and names what is wrong.
 */
export const silenceFormSchema = z.object({
  matchers: z.string().max(20_000),
  kind: z.enum(["once", "weekly"]),
  startsAt: z.iso.datetime().or(z.literal("")),
  endsAt: z.iso.datetime().or(z.literal("")),
  days: z.array(z.enum(weekdays)).max(7),
  startTime: z.string().max(5),
  endTime: z.string().max(5),
  timeZone: z.string().max(100),
  reason: z.string().max(1000),
});
export type SilenceForm = z.infer<typeof silenceFormSchema>;

export function silenceInputOfForm(form: SilenceForm): SilenceInput {
  const base = { matchers: form.matchers, reason: form.reason };
  if (form.kind === "weekly") {
    return { ...base, recurrence: { days: form.days, start_time: form.startTime, end_time: form.endTime, time_zone: form.timeZone } };
  }
  return { ...base, startsAt: form.startsAt ? new Date(form.startsAt) : null, endsAt: form.endsAt ? new Date(form.endsAt) : null };
}
