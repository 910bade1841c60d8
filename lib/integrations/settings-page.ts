import "server-only";
import type { Ctx } from "@/lib/context";
import { chatIntegrationTypes, type ChatIntegrationType } from "@/lib/db/schema";
import type { ProjectView } from "@/lib/projects/projects";
import { chatIntegrations } from "./catalog";
import { integrationFormOf, type IntegrationForm } from "./form-schemas";
import { findIntegration, listProjectIntegrations, projectForIntegrations, type ChatIntegrationAttributes } from "./integrations";

export interface IntegrationSummary {
  type: ChatIntegrationType;
  slug: string;
  title: string;
  description: string;
  /** null: never set up. */
  active: boolean | null;
}

/** Settings › Integrations (Maintainer+): every chat integration, and whether the project has it on. */
export async function getIntegrationsPage(ctx: Ctx, projectReference: string): Promise<{ view: ProjectView; integrations: IntegrationSummary[] }> {
  const view = await projectForIntegrations(ctx, projectReference);
  const saved = new Map((await listProjectIntegrations(ctx, view)).map((integration) => [integration.type, integration]));
  return {
    view,
    integrations: chatIntegrationTypes.map((type) => {
      const { slug, title, description } = chatIntegrations[type];
      return { type, slug, title, description, active: saved.get(type)?.active ?? null };
    }),
  };
}

/** An integration's settings page: its form as saved (or GitLab's defaults), and whether a webhook is saved. */
export async function getIntegrationEditPage(
  ctx: Ctx,
  projectReference: string,
  type: ChatIntegrationType,
): Promise<{ view: ProjectView; form: IntegrationForm; hasWebhook: boolean; active: boolean | null }> {
  const view = await projectForIntegrations(ctx, projectReference);
  const integration = await findIntegration(ctx.db, view.project.id, type);
  return { view, form: integrationFormOf(type, integration), hasWebhook: Boolean(integration?.webhookCiphertext), active: integration?.active ?? null };
}

const textOrNull = (value: string) => (value.trim() === "" ? null : value);

/** The form's fields as the API's attributes (the integration keeps those it takes); a blank webhook keeps the saved one. */
export function attributesFromForm(form: IntegrationForm): ChatIntegrationAttributes {
  return {
    ...(form.webhook !== "" ? { webhook: form.webhook } : {}),
    username: textOrNull(form.username),
    channel: textOrNull(form.channel),
    notify_only_broken_pipelines: form.notifyOnlyBrokenPipelines,
    branches_to_be_notified: form.branchesToBeNotified,
    labels_to_be_notified: textOrNull(form.labelsToBeNotified),
    labels_to_be_notified_behavior: form.labelsToBeNotifiedBehavior,
    push_events: form.pushEvents,
    issues_events: form.issuesEvents,
    confidential_issues_events: form.confidentialIssuesEvents,
    note_events: form.noteEvents,
    confidential_note_events: form.confidentialNoteEvents,
    tag_push_events: form.tagPushEvents,
    incident_events: form.incidentEvents,
    alert_events: form.alertEvents,
    push_channel: textOrNull(form.pushChannel),
    issue_channel: textOrNull(form.issueChannel),
    confidential_issue_channel: textOrNull(form.confidentialIssueChannel),
    note_channel: textOrNull(form.noteChannel),
    confidential_note_channel: textOrNull(form.confidentialNoteChannel),
    tag_push_channel: textOrNull(form.tagPushChannel),
    incident_channel: textOrNull(form.incidentChannel),
    alert_channel: textOrNull(form.alertChannel),
  };
}
