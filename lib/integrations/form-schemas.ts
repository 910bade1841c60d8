import { z } from "zod";
import type { ChatIntegrationType, ProjectIntegrationRow } from "@/lib/db/schema/integrations";
import { branchChoices, chatIntegrations, eventToggleDefaults, labelBehaviors, type FiredChatEvent } from "./catalog";

/**
 * The form of an integration's settings page (Settings › Integrations › …): the fields of every chat integration,
 * each page showing those of its own. Pure, so the form and its server actions share it.
 */

/** The events the page offers, with GitLab's labels and what sets each off. */
export const triggerOptions: { event: FiredChatEvent; toggle: TriggerToggle; channel: TriggerChannel; label: string; hint: string }[] = [
  { event: "push", toggle: "pushEvents", channel: "pushChannel", label: "Push", hint: "A push is made to the repository." },
  { event: "issue", toggle: "issuesEvents", channel: "issueChannel", label: "Issue", hint: "An issue is created, closed, or reopened." },
  {
    event: "confidential_issue",
    toggle: "confidentialIssuesEvents",
    channel: "confidentialIssueChannel",
    label: "Confidential issue",
    hint: "A confidential issue is created, closed, or reopened.",
  },
  { event: "note", toggle: "noteEvents", channel: "noteChannel", label: "Note", hint: "A comment is added." },
  {
    event: "confidential_note",
    toggle: "confidentialNoteEvents",
    channel: "confidentialNoteChannel",
    label: "Confidential note",
    hint: "An internal note or a comment on a confidential issue is added.",
  },
  { event: "tag_push", toggle: "tagPushEvents", channel: "tagPushChannel", label: "Tag push", hint: "A new tag is pushed to the repository." },
  { event: "incident", toggle: "incidentEvents", channel: "incidentChannel", label: "Incident", hint: "An incident is created, closed, or reopened." },
  { event: "alert", toggle: "alertEvents", channel: "alertChannel", label: "Alert", hint: "A new, unique alert is recorded." },
];

const toggles = {
  pushEvents: z.boolean(),
  issuesEvents: z.boolean(),
  confidentialIssuesEvents: z.boolean(),
  noteEvents: z.boolean(),
  confidentialNoteEvents: z.boolean(),
  tagPushEvents: z.boolean(),
  incidentEvents: z.boolean(),
  alertEvents: z.boolean(),
};
/** A text the database can keep: PostgreSQL refuses NUL characters. */
const text = z.string().refine((value) => !value.includes("\u0000"), "must not contain NUL characters");

const channels = {
  pushChannel: text,
  issueChannel: text,
  confidentialIssueChannel: text,
  noteChannel: text,
  confidentialNoteChannel: text,
  tagPushChannel: text,
  incidentChannel: text,
  alertChannel: text,
};
export type TriggerToggle = keyof typeof toggles;
export type TriggerChannel = keyof typeof channels;

export const integrationFormSchema = z.object({
  active: z.boolean(),
  /** Blank keeps the webhook saved (it is never shown). */
  webhook: text.trim(),
  username: text,
  channel: text,
  notifyOnlyBrokenPipelines: z.boolean(),
  branchesToBeNotified: z.enum(branchChoices),
  labelsToBeNotified: text,
  labelsToBeNotifiedBehavior: z.enum(labelBehaviors),
  ...toggles,
  ...channels,
});

export type IntegrationForm = z.infer<typeof integrationFormSchema>;

const shown = (value: unknown) => (typeof value === "string" ? value : "");

/** The form as an integration's page starts from it: its settings, or GitLab's defaults for one not set up yet. */
export function integrationFormOf(type: ChatIntegrationType, integration: ProjectIntegrationRow | null): IntegrationForm {
  const properties = integration?.properties ?? {};
  const channel = (name: keyof typeof properties) => shown(properties[name]);
  return {
    active: integration?.active ?? true,
    webhook: "",
    username: channel("username"),
    channel: channel("channel"),
    notifyOnlyBrokenPipelines: properties.notify_only_broken_pipelines !== false,
    branchesToBeNotified: (branchChoices as readonly string[]).includes(shown(properties.branches_to_be_notified))
      ? (properties.branches_to_be_notified as IntegrationForm["branchesToBeNotified"])
      : "default",
    labelsToBeNotified: channel("labels_to_be_notified"),
    labelsToBeNotifiedBehavior: properties.labels_to_be_notified_behavior === "match_all" ? "match_all" : "match_any",
    pushEvents: integration?.pushEvents ?? eventToggleDefaults.push_events,
    issuesEvents: integration?.issuesEvents ?? eventToggleDefaults.issues_events,
    confidentialIssuesEvents: integration?.confidentialIssuesEvents ?? eventToggleDefaults.confidential_issues_events,
    noteEvents: integration?.noteEvents ?? eventToggleDefaults.note_events,
    confidentialNoteEvents: integration?.confidentialNoteEvents ?? eventToggleDefaults.confidential_note_events,
    tagPushEvents: integration?.tagPushEvents ?? eventToggleDefaults.tag_push_events,
    incidentEvents: integration?.incidentEvents ?? eventToggleDefaults.incident_events,
    alertEvents: integration?.alertEvents ?? eventToggleDefaults.alert_events,
    pushChannel: channel("push_channel"),
    issueChannel: channel("issue_channel"),
    confidentialIssueChannel: channel("confidential_issue_channel"),
    noteChannel: channel("note_channel"),
    confidentialNoteChannel: channel("confidential_note_channel"),
    tagPushChannel: channel("tag_push_channel"),
    incidentChannel: channel("incident_channel"),
    alertChannel: channel("alert_channel"),
  };
}

/** The triggers an integration's page shows: the events it supports that this service sends. */
export function triggersOf(type: ChatIntegrationType) {
  return triggerOptions.filter((option) => chatIntegrations[type].supportedEvents.includes(option.event));
}
