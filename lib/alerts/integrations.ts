import "server-only";
import { randomBytes } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import type { PageRequest } from "@/lib/api/pagination";
import type { Ctx } from "@/lib/context";
import { decryptSecret, encryptSecret, sha256Hex } from "@/lib/crypto";
import { listPage, type ListPage } from "@/lib/db";
import { alertIntegrations, integrationTypes, projects, type AlertIntegrationRow } from "@/lib/db/schema";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { getEncryptionKey } from "@/lib/instance-secrets";
import { hasFullRights } from "@/lib/projects/policy";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import { alertFields, alertSeverities, isEachElement, type PayloadAttributeMapping, type PayloadPath } from "./fields";
import { deepSizeProblem, type DeepSizeProblem } from "./deep-size";
import { isPlainObject } from "./json-values";
import { extractPayloadFields, ownValue, type PayloadField } from "./payload-fields";
import { payloadFormats, payloadFormatSettings, type PayloadFormatSetting } from "./formats/types";
import { dueAfter, heartbeatEntity, heartbeatSettingsOf, rescheduledDueAt, serializeHeartbeat } from "./heartbeat-settings";
import { integrationUrl, senderApiUrls } from "./urls";

export { integrationTypes };
export type IntegrationType = (typeof integrationTypes)[number];

/** The largest alert body the receiver reads, and the largest sample payload an integration keeps. */
export const maxPayloadBytes = 1024 * 1024;

export interface IntegrationInput {
  name?: string;
  type?: IntegrationType;
  active?: boolean;
  payloadExample?: string;
  payloadAttributeMapping?: PayloadAttributeMapping;
  rateLimitPerMinute?: number | null;
  payloadFormat?: PayloadFormatSetting;
  /** A heartbeat's settings (`heartbeat` integrations only): the interval is required, the grace period defaults. */
  heartbeatIntervalSeconds?: number;
  heartbeatGraceSeconds?: number;
}

function newToken(): string {
  return randomBytes(16).toString("hex");
}

/** How a payload over GitLab's limits (`deepSizeProblem`) is reported on the attribute that holds it. */
export const deepSizeMessages: Record<DeepSizeProblem, string> = { too_big: "is too big", too_deep: "is nested too deeply" };

/** Parses a sample payload: valid JSON, an object, within the receiver's size and depth limits. */
export function parsePayloadExample(text: string): Record<string, unknown> {
  if (Buffer.byteLength(text, "utf8") > maxPayloadBytes) throw new ValidationError({ payload_example: ["is too big"] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError({ payload_example: ["is not valid JSON"] });
  }
  if (!isPlainObject(parsed)) throw new ValidationError({ payload_example: ["must be a JSON object"] });
  const problem = deepSizeProblem(parsed);
  if (problem) throw new ValidationError({ payload_example: [deepSizeMessages[problem]] });
  return parsed;
}

/**
 * A mapping may name only known alert fields, each with a non-empty path and a type that field accepts; a path through
 * every element of an array reads a list, so it is an array; a severity's value map and fallback name severities. A
 * path's keys are the payload's own: a name every object inherits (`constructor`, `toString`, `__proto__`…) is a key
 * only where the sample payload has it.
 */
function validateMapping(mapping: PayloadAttributeMapping, sampleText: string): void {
  const invalid = (message: string) => new ValidationError({ payload_attribute_mapping: [message] });
  for (const [field, mapped] of Object.entries(mapping)) {
    const definition = alertFields.find((candidate) => candidate.name === field);
    if (!definition) throw invalid(`names an unknown alert field: ${field}`);
    if (!mapped || mapped.path.length === 0) throw invalid(`${field} needs a path`);
    if (!(definition.types as readonly string[]).includes(mapped.type)) throw invalid(`${field} cannot take a value of type ${mapped.type}`);
    if (mapped.path.some(isEachElement) && mapped.type !== "array") throw invalid(`${field} reads every element of an array, so its type is array`);
    const inherited = inheritedKeyMissingFromSample(mapped.path, sampleText);
    if (inherited !== null) throw invalid(`${field} reads "${inherited}", which is not a key of the sample payload`);
    if (field === "severity") {
      const named = [...Object.values(mapped.values ?? {}), ...(mapped.fallback ? [mapped.fallback] : [])];
      const unknown = named.find((severity) => !(alertSeverities as readonly string[]).includes(severity));
      if (unknown !== undefined) throw invalid(`severity values must be one of ${alertSeverities.join(", ")}, not ${unknown}`);
    }
  }
}

/** The first step of a path that names an inherited property the sample does not hold itself there, or null. */
function inheritedKeyMissingFromSample(path: PayloadPath, sampleText: string): string | null {
  if (!path.some((segment) => typeof segment === "string" && segment in inheritedKeys)) return null;
  let reached: unknown[] = [parseSample(sampleText)];
  for (const segment of path) {
    if (typeof segment === "string" && segment in inheritedKeys && !reached.some((value) => isPlainObject(value) && Object.hasOwn(value, segment))) {
      return segment;
    }
    reached = isEachElement(segment)
      ? reached.flatMap((value) => (Array.isArray(value) ? value : []))
      : reached.map((value) => ownValue(value, segment)).filter((value) => value !== undefined);
  }
  return null;
}

/** Every property a parsed JSON object has without holding it: `Object.prototype`'s. */
const inheritedKeys: object = Object.prototype;

function parseSample(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function validateName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw new ValidationError({ name: ["can't be blank"] });
  if (trimmed.length > 255) throw new ValidationError({ name: ["is too long (maximum is 255 characters)"] });
  return trimmed;
}

/** Integrations are configured by Maintainers and above. */
function projectForIntegrations(ctx: Ctx, projectReference: string): Promise<ProjectView> {
  return getProjectWithAbility(ctx, projectReference, "manageIntegrations");
}

export async function createIntegration(ctx: Ctx, projectReference: string, input: IntegrationInput): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  const name = validateName(input.name ?? "");
  if (input.payloadExample !== undefined) parsePayloadExample(input.payloadExample);
  if (input.payloadAttributeMapping) validateMapping(input.payloadAttributeMapping, input.payloadExample ?? "{}");
  const type = input.type ?? "http";
  const heartbeat = heartbeatSettingsOf(type, { intervalSeconds: input.heartbeatIntervalSeconds, graceSeconds: input.heartbeatGraceSeconds });
  const active = input.active ?? false;
  const token = newToken();
  const tokenCiphertext = encryptSecret(token, await getEncryptionKey(ctx.db));
  const integration = await ctx.db.transaction(async (tx) => {
    if (type === "prometheus") {
      // A project has one Prometheus endpoint (`/prometheus/alerts/notify.json`), so one Prometheus integration, as
      // GitLab allows; the project's row is locked so two requests at once cannot both add one.
      await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, view.project.id)).for("update");
      const [existing] = await tx
        .select({ id: alertIntegrations.id })
        .from(alertIntegrations)
        .where(and(eq(alertIntegrations.projectId, view.project.id), eq(alertIntegrations.type, "prometheus")));
      if (existing) throw new ValidationError({ type: ["Multiple integrations of a single type are not supported for this project"] });
    }
    const [inserted] = await tx
      .insert(alertIntegrations)
      .values({
        projectId: view.project.id,
        name,
        type,
        active,
        endpointIdentifier: randomBytes(8).toString("hex"),
        tokenDigest: sha256Hex(token),
        tokenCiphertext,
        payloadExample: input.payloadExample ?? "{}",
        payloadAttributeMapping: input.payloadAttributeMapping ?? {},
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        payloadFormat: input.payloadFormat ?? "auto",
        heartbeatIntervalSeconds: heartbeat?.intervalSeconds ?? null,
        heartbeatGraceSeconds: heartbeat?.graceSeconds ?? null,
        // An active heartbeat waits for its first ping from now on.
        nextDueAt: heartbeat && active ? dueAfter(ctx.now, heartbeat) : null,
      })
      .returning();
    if (!inserted) throw new Error("insert into alert_integrations returned no row");
    return inserted;
  });
  return { view, integration };
}

export interface IntegrationView {
  view: ProjectView;
  integration: AlertIntegrationRow;
}

/** A project's integrations, oldest first: a page of them (the API), or all (the settings page, a handful). */
export async function listIntegrations(ctx: Ctx, projectReference: string, page?: PageRequest): Promise<ListPage<IntegrationView>> {
  const view = await projectForIntegrations(ctx, projectReference);
  const inProject = eq(alertIntegrations.projectId, view.project.id);
  const rows = ctx.db.select().from(alertIntegrations).where(inProject).orderBy(asc(alertIntegrations.id)).$dynamic();
  const list = page
    ? await listPage(ctx.db, page, rows, ctx.db.select({ one: sql`1` }).from(alertIntegrations).where(inProject).$dynamic())
    : await rows.then((all) => ({ items: all, total: all.length, hasNext: false }));
  return { ...list, items: list.items.map((integration) => ({ view, integration })) };
}

export async function getIntegration(ctx: Ctx, projectReference: string, integrationId: number): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  return { view, integration: await findIntegration(ctx, view, integrationId) };
}

async function findIntegration(ctx: Ctx, view: ProjectView, integrationId: number): Promise<AlertIntegrationRow> {
  const [integration] = await ctx.db
    .select()
    .from(alertIntegrations)
    .where(and(eq(alertIntegrations.projectId, view.project.id), eq(alertIntegrations.id, integrationId)));
  if (!integration) throw new NotFoundError("Integration");
  return integration;
}

/** Changing the sample payload clears the mapping, unless a new mapping comes with it (it was made for the old one). */
export async function updateIntegration(
  ctx: Ctx,
  projectReference: string,
  integrationId: number,
  input: Omit<IntegrationInput, "type">,
): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  const existing = await findIntegration(ctx, view, integrationId);
  if (input.payloadExample !== undefined) parsePayloadExample(input.payloadExample);
  if (input.payloadAttributeMapping) validateMapping(input.payloadAttributeMapping, input.payloadExample ?? existing.payloadExample);
  const exampleChanged = input.payloadExample !== undefined && input.payloadExample !== existing.payloadExample;
  const mapping = input.payloadAttributeMapping ?? (exampleChanged ? {} : existing.payloadAttributeMapping);
  const active = input.active ?? existing.active;
  const heartbeat = heartbeatSettingsOf(
    existing.type,
    { intervalSeconds: input.heartbeatIntervalSeconds, graceSeconds: input.heartbeatGraceSeconds },
    existing.heartbeatIntervalSeconds !== null && existing.heartbeatGraceSeconds !== null
      ? { intervalSeconds: existing.heartbeatIntervalSeconds, graceSeconds: existing.heartbeatGraceSeconds }
      : undefined,
  );
  const [integration] = await ctx.db
    .update(alertIntegrations)
    .set({
      name: input.name === undefined ? existing.name : validateName(input.name),
      active,
      payloadExample: input.payloadExample ?? existing.payloadExample,
      payloadAttributeMapping: mapping,
      rateLimitPerMinute: input.rateLimitPerMinute === undefined ? existing.rateLimitPerMinute : input.rateLimitPerMinute,
      payloadFormat: input.payloadFormat ?? existing.payloadFormat,
      ...(heartbeat
        ? {
            heartbeatIntervalSeconds: heartbeat.intervalSeconds,
            heartbeatGraceSeconds: heartbeat.graceSeconds,
            nextDueAt: rescheduledDueAt(active, heartbeat, ctx.now),
          }
        : {}),
    })
    .where(eq(alertIntegrations.id, existing.id))
    .returning();
  if (!integration) throw new NotFoundError("Integration");
  return { view, integration };
}

export async function deleteIntegration(ctx: Ctx, projectReference: string, integrationId: number): Promise<void> {
  const view = await projectForIntegrations(ctx, projectReference);
  const existing = await findIntegration(ctx, view, integrationId);
  await ctx.db.delete(alertIntegrations).where(eq(alertIntegrations.id, existing.id));
}

/** A new key; the old one stops working with this statement. */
export async function resetIntegrationToken(ctx: Ctx, projectReference: string, integrationId: number): Promise<IntegrationView> {
  const view = await projectForIntegrations(ctx, projectReference);
  const existing = await findIntegration(ctx, view, integrationId);
  const token = newToken();
  const [integration] = await ctx.db
    .update(alertIntegrations)
    .set({ tokenDigest: sha256Hex(token), tokenCiphertext: encryptSecret(token, await getEncryptionKey(ctx.db)) })
    .where(eq(alertIntegrations.id, existing.id))
    .returning();
  if (!integration) throw new NotFoundError("Integration");
  return { view, integration };
}

/** `POST …/alert_management/payload_fields`: the fields of a sample payload that a mapping can use. */
export async function listPayloadFields(ctx: Ctx, projectReference: string, payloadExample: string): Promise<PayloadField[]> {
  await projectForIntegrations(ctx, projectReference);
  return extractPayloadFields(parsePayloadExample(payloadExample));
}

/**
 * GitLab's integration entity. Its `token` lets anyone post alerts, a write credential: it is shown only to callers
 * with full rights (a browser session or an `api` token) and is null for a `read_api` token.
 */
const mappedFieldEntity = entity(
  "MappedField",
  "Where in a payload an alert field is read",
  z.strictObject({
    path: z.array(z.union([z.string(), z.number(), z.strictObject({ each: z.literal(true) })])),
    type: z.enum(["string", "datetime", "number", "array"]),
    label: z.string().nullable().optional(),
    values: z.record(z.string(), z.string()).optional(),
    fallback: z.string().optional(),
  }),
);

export const alertIntegrationEntity = entity(
  "AlertIntegration",
  "An alert integration: where a monitoring tool posts alerts, and how its payloads are read",
  z.strictObject({
    id: z.number().int(),
    name: z.string(),
    type: z.enum(integrationTypes),
    active: z.boolean(),
    endpoint_identifier: z.string(),
    url: z.string(),
    /** Null for a `read_api` token. */
    token: z.string().nullable(),
    payload_example: z.string(),
    payload_attribute_mapping: z.partialRecord(z.enum(alertFields.map((field) => field.name)), mappedFieldEntity),
    payload_format: z.enum(payloadFormatSettings),
    last_payload_format: z.enum(payloadFormats).nullable(),
    pagerduty_events_url: z.string().nullable(),
    opsgenie_alerts_url: z.string().nullable(),
    sns_subscription_confirmation: z.strictObject({ topic_arn: z.string(), subscribe_url: z.string(), received_at: z.string() }).nullable(),
    heartbeat: heartbeatEntity.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  }),
);

/** A field of a sample payload, as `POST …/payload_fields` answers it. */
export const payloadFieldEntity = entity(
  "PayloadField",
  "A field of a sample payload that a mapping can read",
  z.strictObject({ path: mappedFieldEntity.shape.path, label: z.string(), type: mappedFieldEntity.shape.type }),
);

export async function serializeIntegration(ctx: Ctx, { view, integration }: IntegrationView): Promise<z.infer<typeof alertIntegrationEntity>> {
  return {
    id: integration.id,
    name: integration.name,
    type: integration.type,
    active: integration.active,
    endpoint_identifier: integration.endpointIdentifier,
    url: integrationUrl(view, integration),
    token: hasFullRights(ctx.actor) ? decryptSecret(integration.tokenCiphertext, await getEncryptionKey(ctx.db)) : null,
    payload_example: integration.payloadExample,
    payload_attribute_mapping: integration.payloadAttributeMapping,
    payload_format: integration.payloadFormat,
    last_payload_format: integration.lastPayloadFormat,
    ...senderApiUrls(view, integration),
    sns_subscription_confirmation: integration.snsSubscriptionConfirmation
      ? {
          topic_arn: integration.snsSubscriptionConfirmation.topicArn,
          subscribe_url: integration.snsSubscriptionConfirmation.subscribeUrl,
          received_at: integration.snsSubscriptionConfirmation.receivedAt,
        }
      : null,
    heartbeat: serializeHeartbeat(integration),
    created_at: integration.createdAt.toISOString(),
    updated_at: integration.updatedAt.toISOString(),
  };
}
