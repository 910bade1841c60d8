import "server-only";
import { and, asc, eq, lt, sql, type SQL } from "drizzle-orm";
import { preparedQuery, type Database } from "@/lib/db";
import { constantTimeEqual, sha256Hex } from "@/lib/crypto";
import { readBodyText } from "@/lib/http/body";
import { alertIntegrations, alertRateWindows, namespaces, projectAlertSettings, projects, type AlertIntegrationRow } from "@/lib/db/schema";
import { parseProjectReference, projectNamed } from "@/lib/projects/projects";
import { isPlainObject, jsonDepth } from "./json-values";
import { maxPayloadBytes, maxPayloadDepth } from "./integrations";
import { isAlertmanagerPayload, normalizeGenericPayload, normalizePrometheusAlert, type NormalizedAlert } from "./normalize";
import { processAlert, type ProcessedAlert } from "./process";
import { defaultAlertSettings, type AlertSettings } from "./settings";

/** Which integration a receiver URL names (CONTRACT §5). */
export type ReceiverEndpoint =
  | { kind: "identifier"; identifier: string }
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
  body: unknown;
  headers?: Record<string, string>;
}

const unauthorized: ReceiverAnswer = { status: 401, body: { message: "401 Unauthorized" } };
const forbidden: ReceiverAnswer = { status: 403, body: { message: "403 Forbidden" } };

function badRequest(message: string): ReceiverAnswer {
  return { status: 400, body: { message } };
}

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
  if (jsonDepth(parsed) > maxPayloadDepth) {
    return { ok: false, answer: badRequest(`The payload is nested deeper than ${maxPayloadDepth} levels.`) };
  }
  return { ok: true, payload: parsed };
}

/** What receiving an alert needs of its integration; the hot path reads nothing else. */
export type ReceivingIntegration = Pick<
  AlertIntegrationRow,
  "id" | "projectId" | "name" | "active" | "tokenDigest" | "payloadAttributeMapping" | "rateLimitPerMinute"
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
      },
      createIncident: projectAlertSettings.createIncident,
      autoCloseIncident: projectAlertSettings.autoCloseIncident,
    })
    .from(alertIntegrations)
    .innerJoin(projects, eq(projects.id, alertIntegrations.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(projectAlertSettings, eq(projectAlertSettings.projectId, projects.id))
    .where(and(projectNamed({ by: "path", namespacePath: sql.placeholder("namespacePath"), projectPath: sql.placeholder("projectPath") }), which))
    .orderBy(asc(alertIntegrations.id));
}

const integrationByIdentifier = preparedQuery((db) =>
  selectReceivingIntegration(db, eq(alertIntegrations.endpointIdentifier, sql.placeholder("identifier"))).prepare(
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
): Promise<{ integration: ReceivingIntegration; settings: AlertSettings } | undefined> {
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
  return { integration: row.integration, settings };
}

/** Counts this request in the integration's current minute; the answer when it is over the limit. */
async function checkRateLimit(db: Database, integration: ReceivingIntegration, now: Date): Promise<ReceiverAnswer | null> {
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
 * The alert receiver, in GitLab's order of checks: size (413, before anything else), JSON (400), integration
 * (403; 401 for an Alertmanager body), key (401, constant time), rate limit (429), then the alerts. Every 2xx answer
 * is sent after the alerts are committed.
 */
export async function receiveAlert(db: Database, target: ReceiverTarget, request: ReceiverRequest, now: Date): Promise<ReceiverAnswer> {
  const text = await request.readBody();
  if (text === null) return { status: 413, body: { message: `The payload is larger than ${maxPayloadBytes} bytes.` } };
  const parsed = parsePayload(text);
  if (!parsed.ok) return parsed.answer;
  const body = parsed.payload;
  const alertmanager = isAlertmanagerPayload(body);

  const found = await findIntegration(db, target);
  if (!found || !found.integration.active) return alertmanager ? unauthorized : forbidden;
  const { integration, settings } = found;
  const key = presentedKey(request.authorization);
  if (!key || !constantTimeEqual(sha256Hex(key), integration.tokenDigest)) return unauthorized;
  const limited = await checkRateLimit(db, integration, now);
  if (limited) return limited;

  return applyPayload(db, integration, body, now, settings);
}

/** Turns an accepted payload into alerts; shared by the receiver and the integration's test alert. */
export async function applyPayload(
  db: Database,
  integration: ReceivingIntegration,
  body: Record<string, unknown>,
  now: Date,
  settings?: AlertSettings,
): Promise<ReceiverAnswer> {
  if (isAlertmanagerPayload(body)) {
    const processed: ProcessedAlert[] = [];
    for (const element of body.alerts as unknown[]) {
      const normalized = normalizePrometheusAlert(element, now);
      if (!normalized) continue;
      const alert = await processAlert(db, { projectId: integration.projectId, integration, normalized, payload: element, now, settings });
      if (alert) processed.push(alert);
    }
    return { status: 201, body: processed.map(summary) };
  }
  const normalized: NormalizedAlert = normalizeGenericPayload(body, integration.payloadAttributeMapping, now);
  const alert = await processAlert(db, { projectId: integration.projectId, integration, normalized, payload: body, now, settings });
  return { status: 200, body: alert ? [summary(alert)] : [] };
}

function summary(alert: ProcessedAlert) {
  return { iid: alert.iid, title: alert.title };
}
