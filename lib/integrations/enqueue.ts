import "server-only";
import { and, eq, inArray, sql, type Column, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { chatIntegrationTypes, projectIntegrations, type ChatProperties, type ProjectIntegrationRow } from "@/lib/db/schema";
import { enqueueMessages, type NewOutboxMessage } from "@/lib/outbox/outbox";
import { projectDefaultBranch, projectNameWithNamespace, projectWebUrl } from "@/lib/projects/serialize";
import type { ProjectView } from "@/lib/projects/projects";
import { chatIntegrations, eventToggles, supportsEvent, typesSupporting, type FiredChatEvent, type FiredEventToggle } from "./catalog";
import { channelsFor } from "./channels";
import { chatRequests, readsMarkdown, type ChatRequest } from "./formats";
import {
  alertMessage,
  issueMessage,
  noteMessage,
  pushMessage,
  type AlertMessageData,
  type ChatMessage,
  type IssueMessageData,
  type MessageOptions,
  type NoteMessageData,
  type PushMessageData,
} from "./messages";
import { chatNotificationTopic, integrationOrderingKey } from "./topic";

/**
 * The chat integrations' side of the project's changes, called from the webhook side (`lib/webhooks/events.ts`,
 * `lib/git/push-hooks.ts`) and the alert receiver in the change's transaction: the message each active integration
 * that takes the event gets is built from the event's hook data (as GitLab builds its chat messages from it) and
 * written to the outbox with the change. Sending happens in the workers (`chatNotificationSender`).
 */

const toggleColumns: Record<FiredEventToggle, SQL> = {
  push_events: sql`${projectIntegrations.pushEvents}`,
  tag_push_events: sql`${projectIntegrations.tagPushEvents}`,
  issues_events: sql`${projectIntegrations.issuesEvents}`,
  confidential_issues_events: sql`${projectIntegrations.confidentialIssuesEvents}`,
  note_events: sql`${projectIntegrations.noteEvents}`,
  confidential_note_events: sql`${projectIntegrations.confidentialNoteEvents}`,
  incident_events: sql`${projectIntegrations.incidentEvents}`,
  alert_events: sql`${projectIntegrations.alertEvents}`,
};

/**
 * Active integrations of the project that take `event` and can send it (one of GitLab's `*_hooks` scopes). The
 * project is an id, or a column of the query the condition goes into.
 */
function takingEvent(projectId: number | Column, event: FiredChatEvent): SQL {
  const types = typesSupporting(event);
  return and(
    eq(projectIntegrations.projectId, projectId),
    eq(projectIntegrations.active, true),
    toggleColumns[eventToggles[event]],
    types.length === chatIntegrationTypes.length ? undefined : inArray(projectIntegrations.type, types),
  )!;
}

/** Whether an integration of the project takes one of `events`, as a condition: combined with the hooks' into one lookup. */
export function integrationsTake(projectId: number | Column, events: readonly FiredChatEvent[]): SQL {
  if (events.length === 0) return sql`false`;
  const taking = sql.join(
    events.map((event) => sql`(${takingEvent(projectId, event)})`),
    sql` or `,
  );
  return sql`exists (select 1 from ${projectIntegrations} where ${taking})`;
}

/** What one event carries to chat: its kind of message and the hook data GitLab builds the message from. */
export type ChatNotification =
  | { event: "push" | "tag_push"; data: PushMessageData }
  | { event: "issue" | "confidential_issue" | "incident"; data: IssueMessageData }
  | { event: "note" | "confidential_note"; data: NoteMessageData }
  | { event: "alert"; data: AlertMessageData };

type ProjectRef = Pick<ProjectView, "project" | "namespace">;

/** The message of an event as a service of the kind reads it (Markdown or Slack's links). */
export function messageOf(notification: ChatNotification, options: MessageOptions): ChatMessage {
  switch (notification.event) {
    case "push":
    case "tag_push":
      return pushMessage(notification.data, options);
    case "issue":
    case "confidential_issue":
    case "incident":
      return issueMessage(notification.data, options);
    case "note":
    case "confidential_note":
      return noteMessage(notification.data, options);
    case "alert":
      return alertMessage(notification.data, options);
  }
}

/** `notify_for_branch?`: the push's branch against the integration's choice (the default branch is the protected one). */
function branchNotified(properties: ChatProperties, view: ProjectRef, ref: string): boolean {
  if (!ref.startsWith("refs/heads/")) return true;
  const isDefault = ref.slice("refs/heads/".length) === projectDefaultBranch(view);
  switch (properties.branches_to_be_notified) {
    case "all":
      return true;
    case "default":
    case "protected":
    case "default_and_protected":
      return isDefault;
    default:
      return false;
  }
}

/** `notify_label?`: with labels to be notified, an issue or comment goes out only when its issue has any (or all) of them. */
function labelsNotified(properties: ChatProperties, notification: ChatNotification): boolean {
  const wanted = typeof properties.labels_to_be_notified === "string" ? properties.labels_to_be_notified : "";
  if (wanted.trim() === "") return true;
  const labels =
    notification.event === "note" || notification.event === "confidential_note"
      ? notification.data.issue.labels
      : notification.event === "issue" || notification.event === "confidential_issue" || notification.event === "incident"
        ? notification.data.labels
        : null;
  if (labels === null) return true;
  if (labels.length === 0) return false;
  const titles = new Set(labels.map((label) => label.title));
  const listed = wanted
    .replaceAll("~", "")
    .split(",")
    .map((name) => name.trim());
  const matching = listed.filter((name) => titles.has(name));
  return properties.labels_to_be_notified_behavior === "match_all" ? listed.every((name) => titles.has(name)) : matching.length > 0;
}

/** GitLab sends no message for an issue's other changes (`update?`): only its opening, closing and reopening. */
function sendsMessage(notification: ChatNotification): boolean {
  if (notification.event === "issue" || notification.event === "confidential_issue" || notification.event === "incident") {
    return notification.data.object_attributes.action !== "update";
  }
  return true;
}

/** What a chat message carries in the outbox: the integration, the event (for logs) and the request to send. */
export interface ChatDelivery {
  integrationId: number;
  event: FiredChatEvent;
  request: ChatRequest;
}

/** The requests an integration sends for an event, or none when its filters keep the event out. */
export function requestsFor(
  integration: Pick<ProjectIntegrationRow, "type" | "properties">,
  view: ProjectRef,
  notification: ChatNotification,
  now: Date,
): ChatRequest[] {
  const { properties, type } = integration;
  if (!supportsEvent(type, notification.event) || !sendsMessage(notification)) return [];
  if ((notification.event === "push" || notification.event === "tag_push") && !branchNotified(properties, view, notification.data.ref)) return [];
  if (chatIntegrations[type].labels && !labelsNotified(properties, notification)) return [];
  const message = messageOf(notification, { projectName: projectNameWithNamespace(view), projectUrl: projectWebUrl(view), markdown: readsMarkdown(type) });
  const username = chatIntegrations[type].username && typeof properties.username === "string" ? properties.username : null;
  const channels = chatIntegrations[type].channels ? channelsFor(properties, notification.event) : [];
  return chatRequests(type, message, { channels, username, now });
}

/**
 * Writes the messages of an event to every active integration of the project that takes it, in the caller's
 * transaction: one read of the integrations, one insert for all their messages.
 */
export async function enqueueChatNotifications(tx: Executor, change: { view: ProjectRef; notification: ChatNotification; now: Date }): Promise<number> {
  const { view, notification, now } = change;
  const integrations = await tx
    .select({ id: projectIntegrations.id, type: projectIntegrations.type, properties: projectIntegrations.properties })
    .from(projectIntegrations)
    .where(takingEvent(view.project.id, notification.event))
    .orderBy(projectIntegrations.id);
  const messages: NewOutboxMessage[] = integrations.flatMap((integration) =>
    requestsFor(integration, view, notification, now).map((request) => ({
      topic: chatNotificationTopic,
      orderingKey: integrationOrderingKey(integration.id),
      payload: { integrationId: integration.id, event: notification.event, request } satisfies ChatDelivery as unknown as Record<string, unknown>,
    })),
  );
  return enqueueMessages(tx, messages);
}
