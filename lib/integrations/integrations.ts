import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import type { Ctx } from "@/lib/context";
import { decryptSecret, encryptSecret } from "@/lib/crypto";
import type { Database, Executor } from "@/lib/db";
import {
  projectIntegrations,
  type ChatIntegrationType,
  type ChatProperties,
  type ChatPropertyName,
  type ProjectIntegrationRow,
} from "@/lib/db/schema";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { literalUrlProblem, outboundReasons } from "@/lib/http/outbound";
import { getEncryptionKey } from "@/lib/instance-secrets";
import { localRequestsAllowedFromWebHooks } from "@/lib/instance/settings";
import { discardMessagesOf } from "@/lib/outbox/outbox";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import {
  branchChoices,
  channelLimitPerEvent,
  channelProperty,
  chatIntegrations,
  eventToggleDefaults,
  eventTogglesOf,
  initialProperties,
  isDormantToggle,
  labelBehaviors,
  type EventToggle,
} from "./catalog";
import { channelsFor } from "./channels";
import { integrationOrderingKey } from "./topic";

/** An integration's settings as GitLab's API names them; what is left out stays as it is (a new one: GitLab's defaults). */
export type ChatIntegrationAttributes = Partial<Record<EventToggle, boolean>> & Partial<Record<ChatPropertyName, string | boolean | null>> & { webhook?: string };

export interface IntegrationView {
  view: ProjectView;
  integration: ProjectIntegrationRow;
}

/** GitLab's longest URL of a hook; a webhook is no longer. */
const webhookLimit = 5000;

/** The integrations API needs Maintainer (GitLab's `admin_project`): 404 for a project the caller cannot see, 403 below it. */
export function projectForIntegrations(ctx: Ctx, projectReference: string): Promise<ProjectView> {
  return getProjectWithAbility(ctx, projectReference, "manageIntegrations");
}

export async function findIntegration(db: Executor, projectId: number, type: ChatIntegrationType): Promise<ProjectIntegrationRow | null> {
  const [row] = await db
    .select()
    .from(projectIntegrations)
    .where(and(eq(projectIntegrations.projectId, projectId), eq(projectIntegrations.type, type)));
  return row ?? null;
}

/** `GET /projects/:id/integrations`: the active ones. */
export async function listActiveIntegrations(ctx: Ctx, projectReference: string): Promise<IntegrationView[]> {
  const view = await projectForIntegrations(ctx, projectReference);
  const rows = await ctx.db
    .select()
    .from(projectIntegrations)
    .where(and(eq(projectIntegrations.projectId, view.project.id), eq(projectIntegrations.active, true)))
    .orderBy(asc(projectIntegrations.id));
  return rows.map((integration) => ({ view, integration }));
}

/** Every integration the project has set up, active or not (the settings page). */
export async function listProjectIntegrations(ctx: Ctx, view: ProjectView): Promise<ProjectIntegrationRow[]> {
  return ctx.db.select().from(projectIntegrations).where(eq(projectIntegrations.projectId, view.project.id)).orderBy(asc(projectIntegrations.id));
}

/** `GET /projects/:id/integrations/:slug`: 404 for one never set up. */
export async function getIntegration(ctx: Ctx, projectReference: string, type: ChatIntegrationType): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  const integration = await findIntegration(ctx.db, view.project.id, type);
  if (!integration) throw new NotFoundError("Integration");
  return { view, integration };
}

/** An integration's webhook URL, decrypted, or null. */
export async function webhookOf(db: Database, integration: Pick<ProjectIntegrationRow, "webhookCiphertext">): Promise<string | null> {
  if (!integration.webhookCiphertext) return null;
  return decryptSecret(integration.webhookCiphertext, await getEncryptionKey(db));
}

/**
 * The webhook an integration may have: present, within GitLab's length for hook URLs, and a URL `sendOutbound` would
 * send to (http or https, no credentials, not a local address unless the instance allows the local network). A name
 * is not resolved here: every request checks the address it connects to. GitLab's validation messages.
 */
export async function webhookProblem(db: Database, webhook: string): Promise<string | null> {
  if (webhook.trim() === "") return "can't be blank";
  if (webhook.length > webhookLimit) return `is too long (maximum is ${webhookLimit} characters)`;
  const problem = literalUrlProblem(webhook, await localRequestsAllowedFromWebHooks(db));
  if (problem === outboundReasons.invalidUri) return "must be a valid URL";
  return problem === null ? null : `is blocked: ${problem}`;
}

/** GitLab's validations of the settings: the choices of the selects, and at most ten channels per event. */
function propertyProblems(type: ChatIntegrationType, properties: ChatProperties): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const choice = (name: ChatPropertyName, choices: readonly string[]) => {
    const value = properties[name];
    if (typeof value === "string" && value !== "" && !choices.includes(value)) errors[name] = ["is not included in the list"];
  };
  choice("branches_to_be_notified", branchChoices);
  choice("labels_to_be_notified_behavior", labelBehaviors);
  const definition = chatIntegrations[type];
  if (definition.channels) {
    for (const event of definition.supportedEvents) {
      if (channelsFor(properties, event).length > channelLimitPerEvent) errors[channelProperty(event)] = [`cannot have more than ${channelLimitPerEvent} channels`];
    }
  }
  return errors;
}

/** The row's values for the toggles given: fired events in their columns, the others among the dormant ones. */
function togglesOf(type: ChatIntegrationType, attributes: ChatIntegrationAttributes, current: ProjectIntegrationRow | null) {
  const dormant = { ...(current?.dormantEvents ?? {}) };
  const value = (toggle: EventToggle, stored: boolean | undefined) => attributes[toggle] ?? stored ?? eventToggleDefaults[toggle];
  for (const toggle of eventTogglesOf(type)) if (isDormantToggle(toggle) && attributes[toggle] !== undefined) dormant[toggle] = attributes[toggle];
  return {
    pushEvents: value("push_events", current?.pushEvents),
    tagPushEvents: value("tag_push_events", current?.tagPushEvents),
    issuesEvents: value("issues_events", current?.issuesEvents),
    confidentialIssuesEvents: value("confidential_issues_events", current?.confidentialIssuesEvents),
    noteEvents: value("note_events", current?.noteEvents),
    confidentialNoteEvents: value("confidential_note_events", current?.confidentialNoteEvents),
    incidentEvents: value("incident_events", current?.incidentEvents),
    alertEvents: value("alert_events", current?.alertEvents),
    dormantEvents: dormant,
  };
}

/**
 * Only what the integration's API takes: the webhook, its settings and its events' toggles (GitLab's declared
 * parameters for the slug); anything else is dropped, as GitLab's API drops undeclared parameters.
 */
export function attributesFor(type: ChatIntegrationType, attributes: ChatIntegrationAttributes): ChatIntegrationAttributes {
  const taken: string[] = ["webhook", ...chatIntegrations[type].settableProperties, ...eventTogglesOf(type)];
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([name, value]) => value !== undefined && taken.includes(name))
      .map(([name, value]) => [name, typeof value === "string" ? wellFormed(value) : value]),
  ) as ChatIntegrationAttributes;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A text as UTF-8 can hold it, each half of a broken surrogate pair replaced (as text columns store it): the settings
 * are JSON, which PostgreSQL refuses with such a character, and JSON lets a client send one.
 */
function wellFormed(text: string): string {
  return text.replace(loneSurrogate, "\uFFFD");
}

/**
 * The settings an integration would have with `given` over what it has (a new one: GitLab's defaults), checked:
 * refused with GitLab's validation messages. No webhook given keeps the one saved (forms never show it); an inactive
 * integration may have none, as GitLab's.
 */
export async function settingsWith(
  db: Database,
  type: ChatIntegrationType,
  current: ProjectIntegrationRow | null,
  given: ChatIntegrationAttributes,
  { active }: { active: boolean },
): Promise<{ attributes: ChatIntegrationAttributes; properties: ChatProperties; webhook: string | null }> {
  const attributes = attributesFor(type, given);
  const properties: ChatProperties = { ...(current && Object.keys(current.properties).length > 0 ? current.properties : initialProperties) };
  for (const name of chatIntegrations[type].settableProperties) if (attributes[name] !== undefined) properties[name] = attributes[name];
  const errors = propertyProblems(type, properties);
  const webhook = given.webhook ?? (current ? await webhookOf(db, current) : null) ?? "";
  const problem = active || webhook !== "" ? await webhookProblem(db, webhook) : null;
  if (problem) errors.webhook = [problem];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { attributes, properties, webhook: webhook === "" ? null : webhook };
}

/**
 * `PUT /projects/:id/integrations/:slug`: sets the integration up (or changes it) and turns it on (the settings page
 * may save it off). Settings left out keep their values; a new integration starts from GitLab's defaults.
 */
export async function saveIntegration(
  ctx: Ctx,
  projectReference: string,
  type: ChatIntegrationType,
  given: ChatIntegrationAttributes,
  { active = true }: { active?: boolean } = {},
): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  const current = await findIntegration(ctx.db, view.project.id, type);
  const { attributes, properties, webhook } = await settingsWith(ctx.db, type, current, given, { active });
  const values = {
    active,
    webhookCiphertext: webhook === null ? null : encryptSecret(webhook, await getEncryptionKey(ctx.db)),
    properties,
    ...togglesOf(type, attributes, current),
    updatedAt: ctx.now,
  };
  const [integration] = await ctx.db
    .insert(projectIntegrations)
    .values({ projectId: view.project.id, type, ...values, createdAt: ctx.now })
    .onConflictDoUpdate({ target: [projectIntegrations.projectId, projectIntegrations.type], set: values })
    .returning();
  if (!integration) throw new Error("saving an integration returned no row");
  return { view, integration };
}

/**
 * `DELETE /projects/:id/integrations/:slug`: turns the integration off and resets its settings (GitLab keeps the row,
 * inactive, with its event toggles); its messages still waiting are dropped.
 */
export async function disableIntegration(ctx: Ctx, projectReference: string, type: ChatIntegrationType): Promise<void> {
  const view = await projectForIntegrations(ctx, projectReference);
  const current = await findIntegration(ctx.db, view.project.id, type);
  if (!current) return;
  await ctx.db.transaction(async (tx) => {
    await discardMessagesOf(tx, integrationOrderingKey(current.id));
    await tx
      .update(projectIntegrations)
      .set({ active: false, webhookCiphertext: null, properties: {}, updatedAt: ctx.now })
      .where(eq(projectIntegrations.id, current.id));
  });
}

const integrationBasicShape = {
  id: z.number().int(),
  title: z.string(),
  slug: z.string(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  active: z.boolean(),
  commit_events: z.boolean(),
  push_events: z.boolean(),
  issues_events: z.boolean(),
  incident_events: z.boolean(),
  alert_events: z.boolean(),
  confidential_issues_events: z.boolean(),
  merge_requests_events: z.boolean(),
  tag_push_events: z.boolean(),
  deployment_events: z.boolean(),
  note_events: z.boolean(),
  confidential_note_events: z.boolean(),
  pipeline_events: z.boolean(),
  wiki_page_events: z.boolean(),
  job_events: z.boolean(),
  comment_on_event_enabled: z.boolean(),
  inherited: z.boolean(),
};

export const integrationBasicEntity = entity("IntegrationBasic", "A project's chat integration, without its settings", z.strictObject(integrationBasicShape));

export const integrationEntity = entity(
  "Integration",
  "A project's chat integration and its settings (never the webhook, a credential)",
  z.strictObject({ ...integrationBasicShape, properties: z.record(z.string(), z.union([z.string(), z.boolean(), z.null()])) }),
);

/** GitLab's `IntegrationBasic` entity. */
export function serializeIntegrationBasic(integration: ProjectIntegrationRow): z.infer<typeof integrationBasicEntity> {
  const definition = chatIntegrations[integration.type];
  const dormant = (name: "merge_requests_events" | "pipeline_events" | "wiki_page_events" | "deployment_events") =>
    integration.dormantEvents[name] ?? eventToggleDefaults[name];
  return {
    id: integration.id,
    title: definition.title,
    slug: definition.slug,
    created_at: integration.createdAt.toISOString(),
    updated_at: integration.updatedAt.toISOString(),
    active: integration.active,
    commit_events: true,
    push_events: integration.pushEvents,
    issues_events: integration.issuesEvents,
    incident_events: integration.incidentEvents,
    alert_events: integration.alertEvents,
    confidential_issues_events: integration.confidentialIssuesEvents,
    merge_requests_events: dormant("merge_requests_events"),
    tag_push_events: integration.tagPushEvents,
    deployment_events: dormant("deployment_events"),
    note_events: integration.noteEvents,
    confidential_note_events: integration.confidentialNoteEvents,
    pipeline_events: dormant("pipeline_events"),
    wiki_page_events: dormant("wiki_page_events"),
    job_events: true,
    comment_on_event_enabled: true,
    inherited: false,
  };
}

/**
 * An integration's settings as GitLab's API shows them (`api_field_names`): every field but the webhook, which is a
 * credential and never shown back. A confidential event's channel falls back to its public event's, as GitLab reads it.
 */
export function integrationProperties(integration: Pick<ProjectIntegrationRow, "type" | "properties">): Record<string, string | boolean | null> {
  const stored = integration.properties;
  const shown = (name: ChatPropertyName) => {
    if (name === "confidential_issue_channel") return stored.confidential_issue_channel || stored.issue_channel || null;
    if (name === "confidential_note_channel") return stored.confidential_note_channel || stored.note_channel || null;
    return stored[name] ?? null;
  };
  return Object.fromEntries(chatIntegrations[integration.type].properties.map((name) => [name, shown(name)]));
}

/** GitLab's `Integration` entity: the basic one and the properties. */
export function serializeIntegration(integration: ProjectIntegrationRow): z.infer<typeof integrationEntity> {
  return Object.assign(serializeIntegrationBasic(integration), { properties: integrationProperties(integration) });
}
