import "server-only";
import { and, asc, eq, lt, ne, sql, type SQL } from "drizzle-orm";
import { preparedQuery, type Database } from "@/lib/db";
import { constantTimeEqual, sha256Hex } from "@/lib/crypto";
import { readBodyText } from "@/lib/http/body";
import { alertIntegrations, alertRateWindows, alertSilences, namespaces, projectAlertSettings, projects, type AlertIntegrationRow } from "@/lib/db/schema";
import { parseProjectReference, projectNamed } from "@/lib/projects/projects";
import { integrationsTake } from "@/lib/integrations/enqueue";
import { logger } from "@/lib/log";
import { deepSizeProblem } from "./deep-size";
import { isPlainObject } from "./json-values";
import { maxPayloadBytes } from "./integrations";
import { answerForEvents, answerForInvalid, choosePayloadFormat, payloadFormatDefinitions } from "./formats/registry";
import type { OpsgenieAction } from "./formats/opsgenie";
import type { PayloadFormat, RecordedAlert, SubscriptionConfirmation } from "./formats/types";
import { isAlertmanagerPayload } from "./normalize";
import { processAlert } from "./process";
import { defaultAlertSettings, type AlertSettings } from "./settings";

/** Which integration a receiver URL names (the README's Alerts section lists the URLs). */
export type ReceiverEndpoint =
  | { kind: "identifier"; identifier: string }
  /**
   * `/alerts/notify/:name/:endpoint_identifier/v2/enqueue`: the same integration as PagerDuty's Events API v2, for
   * tools whose PagerDuty integration takes a URL: bodies are read as PagerDuty events, and the key may come as
   * their `routing_key`.
   */
  | { kind: "pagerduty-events"; identifier: string }
  /**
   * `/alerts/notify/:name/:endpoint_identifier/v2/alerts`, and `…/v2/alerts/:alias/acknowledge` and `…/close`: the same
   * integration as Opsgenie's Alert API, for tools that send to Opsgenie at a URL of their choosing: the key may
   * come as `Authorization: GenieKey <key>`. `alias` is null for a create, and for a follow-up that names its alert
   * any other way than by alias (`identifierType`), which only Opsgenie's own ids could answer.
   */
  | { kind: "opsgenie-alerts"; identifier: string; action: OpsgenieAction; alias: string | null }
  /** `/alerts/notify.json`: the integration whose identifier is `legacy`. */
  | { kind: "legacy" }
  /** `/prometheus/alerts/notify.json`: the project's oldest active Prometheus integration. */
  | { kind: "prometheus" };

export interface ReceiverTarget {
  projectPath: string;
  endpoint: ReceiverEndpoint;
}

export interface ReceiverAnswer {
  status: number;
  /** The JSON body; none (an empty body) where GitLab answers with its bare status (`head`). */
  body?: unknown;
  headers?: Record<string, string>;
}

export const unauthorized: ReceiverAnswer = { status: 401, body: { message: "401 Unauthorized" } };
/** The answer for a URL with no active integration behind it. */
export const forbidden: ReceiverAnswer = { status: 403, body: { message: "403 Forbidden" } };

function badRequest(message: string): ReceiverAnswer {
  return { status: 400, body: { message } };
}

/** GitLab's answer to a payload over its size or depth limit: `head :bad_request`. */
const payloadOverLimits: ReceiverAnswer = { status: 400 };

/** The key from `Authorization: Bearer <key>`, or the password of HTTP Basic (any user name). */
export function presentedKey(authorization: string | null): string | null {
  if (!authorization) return null;
  const bearer = authorization.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return bearer;
  const basic = authorization.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1];
  if (!basic) return null;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const separator = decoded.indexOf(":");
  return separator >= 0 && separator < decoded.length - 1 ? decoded.slice(separator + 1) : null;
}

/** What the receiver reads of an HTTP request: its credentials, and its body under the size limit. */
export interface ReceiverRequest {
  authorization: string | null;
  /** The body as text, or null when it is larger than `maxPayloadBytes` (it is then read no further). */
  readBody(): Promise<string | null>;
}

/** A web `Request` as the receiver reads it. */
export function receiverRequestOf(request: Request): ReceiverRequest {
  return { authorization: request.headers.get("authorization"), readBody: () => readLimitedBody(request) };
}

class OversizedBody extends Error {}

async function readLimitedBody(request: Request): Promise<string | null> {
  try {
    return await readBodyText(request, maxPayloadBytes, () => new OversizedBody());
  } catch (error) {
    if (error instanceof OversizedBody) return null;
    throw error;
  }
}

type ParsedPayload = { ok: true; payload: Record<string, unknown> } | { ok: false; answer: ReceiverAnswer };

function parsePayload(text: string): ParsedPayload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, answer: badRequest("The payload is not valid JSON.") };
  }
  if (!isPlainObject(parsed)) return { ok: false, answer: badRequest("The payload must be a JSON object.") };
  if (deepSizeProblem(parsed)) return { ok: false, answer: payloadOverLimits };
  return { ok: true, payload: parsed };
}

/** What receiving an alert needs of its integration; the hot path reads nothing else. */
export type ReceivingIntegration = Pick<
  AlertIntegrationRow,
  | "id"
  | "projectId"
  | "name"
  | "active"
  | "tokenDigest"
  | "payloadAttributeMapping"
  | "rateLimitPerMinute"
  | "payloadFormat"
  | "lastPayloadFormat"
  | "snsSubscriptionConfirmation"
>;

function selectReceivingIntegration(db: Database, which: SQL | undefined) {
  return db
    .select({
      integration: {
        id: alertIntegrations.id,
        projectId: alertIntegrations.projectId,
        name: alertIntegrations.name,
        active: alertIntegrations.active,
        tokenDigest: alertIntegrations.tokenDigest,
        payloadAttributeMapping: alertIntegrations.payloadAttributeMapping,
        rateLimitPerMinute: alertIntegrations.rateLimitPerMinute,
        payloadFormat: alertIntegrations.payloadFormat,
        lastPayloadFormat: alertIntegrations.lastPayloadFormat,
        snsSubscriptionConfirmation: alertIntegrations.snsSubscriptionConfirmation,
      },
      createIncident: projectAlertSettings.createIncident,
      autoCloseIncident: projectAlertSettings.autoCloseIncident,
      sendEmail: projectAlertSettings.sendEmail,
      notifiesChat: sql<boolean>`${integrationsTake(projects.id, ["alert"])}`,
      // A project without silences (most) is spared looking for one that matches each alert.
      hasSilences: sql<boolean>`exists (select 1 from ${alertSilences} where ${alertSilences.projectId} = ${projects.id})`,
    })
    .from(alertIntegrations)
    .innerJoin(projects, eq(projects.id, alertIntegrations.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(projectAlertSettings, eq(projectAlertSettings.projectId, projects.id))
    .where(and(projectNamed({ by: "path", namespacePath: sql.placeholder("namespacePath"), projectPath: sql.placeholder("projectPath") }), which))
    .orderBy(asc(alertIntegrations.id));
}

const integrationByIdentifier = preparedQuery((db) =>
  // A heartbeat takes pings at its own URL (`heartbeats.ts`), never alerts.
  selectReceivingIntegration(db, and(eq(alertIntegrations.endpointIdentifier, sql.placeholder("identifier")), ne(alertIntegrations.type, "heartbeat"))).prepare(
    "receiver_integration_by_identifier",
  ),
);
const oldestActivePrometheusIntegration = preparedQuery((db) =>
  selectReceivingIntegration(db, and(eq(alertIntegrations.type, "prometheus"), eq(alertIntegrations.active, true))).prepare(
    "receiver_prometheus_integration",
  ),
);

/** The integration a receiver URL names, with its project's alert settings (one query on the hot path). */
async function findIntegration(
  db: Database,
  target: ReceiverTarget,
): Promise<{ integration: ReceivingIntegration; settings: AlertSettings; notifiesChat: boolean; hasSilences: boolean } | undefined> {
  const project = parseProjectReference(target.projectPath);
  if (project?.by !== "path") return undefined;
  const inProject = { namespacePath: project.namespacePath, projectPath: project.projectPath };
  const { endpoint } = target;
  const [row] =
    endpoint.kind === "prometheus"
      ? await oldestActivePrometheusIntegration(db).execute(inProject)
      : await integrationByIdentifier(db).execute({ ...inProject, identifier: endpoint.kind === "legacy" ? "legacy" : endpoint.identifier });
  if (!row) return undefined;
  const settings = { ...defaultAlertSettings };
  if (row.createIncident !== null) settings.createIncident = row.createIncident;
  if (row.autoCloseIncident !== null) settings.autoCloseIncident = row.autoCloseIncident;
  if (row.sendEmail !== null) settings.sendEmail = row.sendEmail;
  return { integration: row.integration, settings, notifiesChat: row.notifiesChat === true, hasSilences: row.hasSilences === true };
}

/** Counts this request in the integration's current minute; the answer when it is over the limit. */
export async function checkRateLimit(
  db: Database,
  integration: Pick<ReceivingIntegration, "id" | "rateLimitPerMinute">,
  now: Date,
): Promise<ReceiverAnswer | null> {
  if (integration.rateLimitPerMinute === null) return null;
  const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const [window] = await db
    .insert(alertRateWindows)
    .values({ integrationId: integration.id, windowStart, requestCount: 1 })
    .onConflictDoUpdate({
      target: [alertRateWindows.integrationId, alertRateWindows.windowStart],
      set: { requestCount: sql`${alertRateWindows.requestCount} + 1` },
    })
    .returning({ requestCount: alertRateWindows.requestCount });
  if (window?.requestCount === 1) {
    // The first request of a minute opens its window; the integration's earlier windows will never be read again.
    await db
      .delete(alertRateWindows)
      .where(and(eq(alertRateWindows.integrationId, integration.id), lt(alertRateWindows.windowStart, windowStart)));
  }
  if ((window?.requestCount ?? 0) <= integration.rateLimitPerMinute) return null;
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
  return {
    status: 429,
    body: { message: "This endpoint has been requested too many times. Try again later." },
    headers: { "Retry-After": String(retryAfter) },
  };
}

/**
 * The alert receiver, in GitLab's order of checks: size (413, before anything else), JSON and GitLab's limits on the
 * parsed payload (400), integration
 * (403; 401 for an Alertmanager body), key (401, constant time), rate limit (429), then the alerts. Every 2xx answer
 * is sent after the alerts are committed.
 */
export async function receiveAlert(db: Database, target: ReceiverTarget, request: ReceiverRequest, now: Date): Promise<ReceiverAnswer> {
  const text = await request.readBody();
  if (text === null) return { status: 413, body: { message: `The payload is larger than ${maxPayloadBytes} bytes.` } };
  const parsed = parsePayload(text);
  if (!parsed.ok) return parsed.answer;
  const { endpoint } = target;
  const body = endpoint.kind === "opsgenie-alerts" ? opsgenieRequestBody(endpoint, parsed.payload) : parsed.payload;
  const alertmanager = isAlertmanagerPayload(body);

  const found = await findIntegration(db, target);
  if (!found || !found.integration.active) return alertmanager ? unauthorized : forbidden;
  const { integration, ...known } = found;
  const key =
    presentedKey(request.authorization) ??
    // PagerDuty clients send no header: the integration's key is the event's routing key.
    (endpoint.kind === "pagerduty-events" && typeof body.routing_key === "string" ? body.routing_key : null) ??
    (endpoint.kind === "opsgenie-alerts" ? genieKey(request.authorization) : null);
  if (!key || !constantTimeEqual(sha256Hex(key), integration.tokenDigest)) return unauthorized;
  const limited = await checkRateLimit(db, integration, now);
  if (limited) return limited;

  if (endpoint.kind === "opsgenie-alerts" && endpoint.action !== "create" && endpoint.alias === null) {
    return answerForInvalid("opsgenie", ["identifierType: Alerts are identified by their alias here: identifierType=alias."]);
  }
  return applyPayload(db, integration, body, now, known, impliedFormats[endpoint.kind]);
}

/** The format a receiver URL implies, whatever the integration's setting. */
const impliedFormats: Record<ReceiverEndpoint["kind"], PayloadFormat | null> = {
  identifier: null,
  legacy: null,
  prometheus: null,
  "pagerduty-events": "pagerduty",
  "opsgenie-alerts": "opsgenie",
};

/** An Opsgenie request as one body: a follow-up's action and alias come with the URL (`opsgenieFormat`). */
function opsgenieRequestBody(endpoint: Extract<ReceiverEndpoint, { kind: "opsgenie-alerts" }>, body: Record<string, unknown>): Record<string, unknown> {
  if (endpoint.action === "create") return body;
  return { ...body, alias: endpoint.alias, opsgenie_action: endpoint.action };
}

/** The key of Opsgenie's `Authorization: GenieKey <key>`. */
function genieKey(authorization: string | null): string | null {
  return authorization?.match(/^GenieKey\s+(\S+)\s*$/i)?.[1] ?? null;
}

/**
 * At most this many alerts of one payload are processed, the first ones, as GitLab does with Alertmanager's
 * (`PROCESS_MAX_ALERTS`): one request cannot hold the receiver for an unbounded number of alerts.
 */
export const maxAlertsPerPayload = 100;

/**
 * Turns an accepted payload into alerts; shared by the receiver and the integration's test alert. The payload is read
 * in one format (`choosePayloadFormat`), which decides what it opens, acknowledges or resolves and how it is answered.
 */
export async function applyPayload(
  db: Database,
  integration: ReceivingIntegration,
  body: Record<string, unknown>,
  now: Date,
  /** What the receiver's lookup already read about the project; read per alert otherwise. */
  known?: { settings: AlertSettings; notifiesChat: boolean; hasSilences?: boolean },
  impliedFormat: PayloadFormat | null = null,
): Promise<ReceiverAnswer> {
  const format = choosePayloadFormat(body, integration, impliedFormat);
  const reading = payloadFormatDefinitions[format].read(body, now, integration.payloadAttributeMapping);
  if (reading.kind === "invalid") return answerForInvalid(format, reading.errors);
  await noteRecognizedFormat(db, integration, format);
  if (reading.kind === "ignored") return { status: 200, body: [] };
  if (reading.kind === "subscription") {
    await keepSubscriptionConfirmation(db, integration.id, reading.confirmation);
    return { status: 200, body: { message: "The subscription confirmation is kept for a Maintainer to confirm on the integration's settings." } };
  }
  const events = reading.events.slice(0, maxAlertsPerPayload);
  if (reading.events.length > events.length) {
    logger.warn(
      { projectId: integration.projectId, integrationId: integration.id, alerts: { total: reading.events.length, max: maxAlertsPerPayload } },
      "alert payload exceeded the maximum number of alerts; the rest were dropped",
    );
  }
  const recorded: (RecordedAlert | null)[] = [];
  for (const { alert: normalized, payload } of events) {
    const alert = await processAlert(db, { projectId: integration.projectId, integration, normalized, payload, format, now, ...known });
    recorded.push(alert ? { iid: alert.iid, title: alert.title } : null);
  }
  // A topic that delivers notifications has been confirmed: the request to confirm it is done with.
  if (format === "cloudwatch" && integration.snsSubscriptionConfirmation) await keepSubscriptionConfirmation(db, integration.id, null);
  return answerForEvents(format, recorded, events);
}

/** The integration page says which format the latest payload was read in; written only when that changes. */
async function noteRecognizedFormat(db: Database, integration: ReceivingIntegration, format: PayloadFormat): Promise<void> {
  if (integration.lastPayloadFormat === format) return;
  await db.update(alertIntegrations).set({ lastPayloadFormat: format, updatedAt: keptUpdatedAt }).where(eq(alertIntegrations.id, integration.id));
}

/** What the receiver notes on an integration is no change to its settings, so their `updated_at` stays. */
const keptUpdatedAt = sql`${alertIntegrations.updatedAt}`;

async function keepSubscriptionConfirmation(db: Database, integrationId: number, confirmation: SubscriptionConfirmation | null): Promise<void> {
  await db.update(alertIntegrations).set({ snsSubscriptionConfirmation: confirmation, updatedAt: keptUpdatedAt }).where(eq(alertIntegrations.id, integrationId));
}
