import { chatIntegrationTypes, type ChatIntegrationType, type ChatPropertyName, type DormantIntegrationEvent } from "@/lib/db/schema/integrations";

/**
 * GitLab's chat notification integrations as its models declare them (`Integrations::Slack`, `Mattermost`, `Discord`,
 * `MicrosoftTeams`, `HangoutsChat` and their concerns): the events each supports, the settings it shows and the
 * parameters its API takes. Pure, so pages, forms and the API share it.
 */

/** GitLab's chat events, in its `SUPPORTED_EVENTS` order; each has a toggle (`*_events`) and, where GitLab has one, a channel. */
export const chatEvents = [
  "push",
  "issue",
  "confidential_issue",
  "merge_request",
  "note",
  "confidential_note",
  "tag_push",
  "pipeline",
  "wiki_page",
  "deployment",
  "incident",
  "alert",
] as const;
export type ChatEvent = (typeof chatEvents)[number];

/** The events this service has and sends: the others' toggles are kept but never fire. */
export const firedChatEvents = ["push", "tag_push", "issue", "confidential_issue", "note", "confidential_note", "incident", "alert"] as const;
export type FiredChatEvent = (typeof firedChatEvents)[number];

/** An event's toggle, as GitLab names it (`IntegrationsHelper.integration_event_field_name`). */
export const eventToggles = {
  push: "push_events",
  issue: "issues_events",
  confidential_issue: "confidential_issues_events",
  merge_request: "merge_requests_events",
  note: "note_events",
  confidential_note: "confidential_note_events",
  tag_push: "tag_push_events",
  pipeline: "pipeline_events",
  wiki_page: "wiki_page_events",
  deployment: "deployment_events",
  incident: "incident_events",
  alert: "alert_events",
} as const satisfies Record<ChatEvent, string>;
export type EventToggle = (typeof eventToggles)[ChatEvent];
export type FiredEventToggle = (typeof eventToggles)[FiredChatEvent];

/** GitLab's defaults for the toggles of a new integration (`Integration` attribute defaults). */
export const eventToggleDefaults: Record<EventToggle, boolean> = {
  push_events: true,
  issues_events: true,
  confidential_issues_events: true,
  merge_requests_events: true,
  note_events: true,
  confidential_note_events: true,
  tag_push_events: true,
  pipeline_events: true,
  wiki_page_events: true,
  deployment_events: false,
  incident_events: false,
  alert_events: true,
};

export function isDormantToggle(toggle: EventToggle): toggle is DormantIntegrationEvent {
  return toggle === "merge_requests_events" || toggle === "pipeline_events" || toggle === "wiki_page_events" || toggle === "deployment_events";
}

/** An event's channel setting (`EVENT_CHANNEL`). */
export function channelProperty(event: ChatEvent): ChatPropertyName {
  return `${event}_channel`;
}

export type BranchesToBeNotified = (typeof branchChoices)[number];
export const branchChoices = ["default", "protected", "default_and_protected", "all"] as const;
export const labelBehaviors = ["match_any", "match_all"] as const;

export interface ChatIntegrationDefinition {
  type: ChatIntegrationType;
  /** The API's name for it: `microsoft-teams`. */
  slug: string;
  title: string;
  description: string;
  /** What a webhook URL of the service looks like (GitLab's help text). */
  webhookExample: string;
  supportedEvents: readonly ChatEvent[];
  /** Whether each event may go to channels of its own (Slack and Mattermost, whose webhooks take a channel). */
  channels: boolean;
  /** Whether the service takes a username to post as. */
  username: boolean;
  /** Whether label filters apply (Slack and Mattermost). */
  labels: boolean;
  /** The settings the API shows in `properties`, in GitLab's field order (never the webhook). */
  properties: readonly ChatPropertyName[];
  /** The settings the API's `PUT` takes besides the webhook and the event toggles (GitLab's `integrations_helpers`). */
  settableProperties: readonly ChatPropertyName[];
}

const slackEvents = ["push", "issue", "confidential_issue", "merge_request", "note", "confidential_note", "tag_push", "pipeline", "wiki_page", "deployment", "incident"] as const;
const teamsEvents = ["push", "issue", "confidential_issue", "merge_request", "note", "confidential_note", "tag_push", "pipeline", "wiki_page"] as const;
const labelProperties = ["labels_to_be_notified", "labels_to_be_notified_behavior"] as const;

function slackLike(type: "slack" | "mattermost", title: string, description: string, webhookExample: string, supportedEvents: readonly ChatEvent[]): ChatIntegrationDefinition {
  const channels = supportedEvents.map(channelProperty);
  return {
    type,
    slug: type,
    title,
    description,
    webhookExample,
    supportedEvents,
    channels: true,
    username: true,
    labels: true,
    properties: ["username", "channel", "notify_only_broken_pipelines", "branches_to_be_notified", ...labelProperties, ...channels],
    settableProperties: ["username", "channel", "branches_to_be_notified", "notify_only_broken_pipelines", ...labelProperties, ...channels],
  };
}

export const chatIntegrations: Record<ChatIntegrationType, ChatIntegrationDefinition> = {
  slack: slackLike("slack", "Slack notifications", "Send notifications about project events to Slack.", "https://hooks.slack.com/services/...", [...slackEvents, "alert"]),
  mattermost: slackLike(
    "mattermost",
    "Mattermost notifications",
    "Send notifications about project events to Mattermost channels.",
    "http://mattermost.example.com/hooks/...",
    slackEvents,
  ),
  discord: {
    type: "discord",
    slug: "discord",
    title: "Discord Notifications",
    description: "Send notifications about project events to a Discord channel.",
    webhookExample: "https://discord.com/api/webhooks/...",
    supportedEvents: [...teamsEvents, "deployment"],
    channels: false,
    username: false,
    labels: false,
    properties: ["notify_only_broken_pipelines", "notify_only_when_pipeline_status_changes", "branches_to_be_notified"],
    settableProperties: ["notify_only_broken_pipelines", "notify_only_when_pipeline_status_changes", "branches_to_be_notified"],
  },
  microsoft_teams: {
    type: "microsoft_teams",
    slug: "microsoft-teams",
    title: "Microsoft Teams notifications",
    description: "Send notifications about project events to Microsoft Teams.",
    webhookExample: "https://outlook.office.com/webhook/...",
    supportedEvents: teamsEvents,
    channels: false,
    username: false,
    labels: false,
    properties: ["notify_only_broken_pipelines", "branches_to_be_notified"],
    settableProperties: ["branches_to_be_notified", "notify_only_broken_pipelines"],
  },
  hangouts_chat: {
    type: "hangouts_chat",
    slug: "hangouts-chat",
    title: "Google Chat",
    description: "Send notifications from GitLab to a space in Google Chat.",
    webhookExample: "https://chat.googleapis.com/v1/spaces...",
    supportedEvents: teamsEvents,
    channels: false,
    username: false,
    labels: false,
    properties: ["notify_only_broken_pipelines", "branches_to_be_notified"],
    settableProperties: ["branches_to_be_notified"],
  },
};

export const chatIntegrationSlugs = chatIntegrationTypes.map((type) => chatIntegrations[type].slug);

/** The integration an API slug names (`microsoft-teams`, or GitLab's stored name `microsoft_teams`), or null. */
export function integrationTypeOfSlug(slug: string): ChatIntegrationType | null {
  const type = slug.replace(/-/g, "_");
  return (chatIntegrationTypes as readonly string[]).includes(type) ? (type as ChatIntegrationType) : null;
}

export function supportsEvent(type: ChatIntegrationType, event: ChatEvent): boolean {
  return chatIntegrations[type].supportedEvents.includes(event);
}

/** The integrations that can send `event`. */
export function typesSupporting(event: ChatEvent): ChatIntegrationType[] {
  return chatIntegrationTypes.filter((type) => supportsEvent(type, event));
}

/** The toggles the API takes for an integration: its supported events' (GitLab's `event_names`). */
export function eventTogglesOf(type: ChatIntegrationType): EventToggle[] {
  return chatIntegrations[type].supportedEvents.map((event) => eventToggles[event]);
}

/** GitLab's properties of a new integration (`initialize_properties`). */
export const initialProperties = {
  notify_only_broken_pipelines: true,
  notify_only_when_pipeline_status_changes: false,
  branches_to_be_notified: "default",
  labels_to_be_notified_behavior: "match_any",
} as const;

/** GitLab's limit on the channels of one event (`channel_limit_per_event`). */
export const channelLimitPerEvent = 10;
