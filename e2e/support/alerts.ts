import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { asToken, uniqueName } from "./api";

/** An integration as `…/alert_management/integrations` renders it. */
export interface Integration {
  id: number;
  name: string;
  type: "http" | "prometheus";
  active: boolean;
  endpoint_identifier: string;
  url: string;
  token: string;
  payload_example: string;
  payload_attribute_mapping: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface Alert {
  id: number;
  iid: number;
  integration_id: number | null;
  title: string;
  description: string | null;
  severity: string;
  status: string;
  started_at: string;
  ended_at: string | null;
  monitoring_tool: string | null;
  service: string | null;
  hosts: string[];
  event_count: number;
  issue_iid: number | null;
  /** GitLab's UserBasic of each assignee. */
  assignees: { id: number; username: string; name: string; state: string; avatar_url: string; web_url: string }[];
  details_url: string;
}

export function integrationsPath(projectId: number): string {
  return `/api/v4/projects/${projectId}/alert_management/integrations`;
}

export function alertsPath(projectId: number): string {
  return `/api/v4/projects/${projectId}/alert_management/alerts`;
}

/** Creates an integration through the REST API as the holder of `token` (a Maintainer or above). */
export async function createIntegration(
  request: APIRequestContext,
  token: string,
  projectId: number,
  data: Record<string, unknown> = {},
): Promise<Integration> {
  const response = await request.post(integrationsPath(projectId), {
    headers: asToken(token),
    data: { name: uniqueName("Monitor"), type: "http", active: true, ...data },
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as Integration;
}

/** The receiver URL of an integration without the base, so the test's own baseURL applies. */
export function receiverPath(integration: Pick<Integration, "url">): string {
  return new URL(integration.url).pathname;
}

export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** HTTP Basic with the key as password; the user name is ignored by the receiver. */
export function basicWithKey(key: string, user = ""): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${user}:${key}`).toString("base64")}` };
}

/**
 * Posts a raw text (or any value, serialized) to a receiver path. Text goes as bytes: Playwright would JSON-encode a
 * string that is not valid JSON itself.
 */
export function postAlert(
  request: APIRequestContext,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  return request.post(path, {
    headers: { "Content-Type": "application/json", ...headers },
    data: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  });
}

/** An Alertmanager webhook (version 4) with one alert per name. */
export function alertmanagerWebhook(status: "firing" | "resolved", names: string[], extra: Record<string, unknown> = {}) {
  return {
    version: "4",
    groupKey: "{}:{alertname=\"e2e\"}",
    status,
    receiver: "gitlab",
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://alertmanager.invalid",
    truncatedAlerts: 0,
    alerts: names.map((name) => ({
      status,
      labels: { alertname: name, severity: "warning" },
      annotations: { description: `${name} described` },
      startsAt: "2026-01-01T10:00:00Z",
      endsAt: status === "resolved" ? "2026-01-01T10:30:00Z" : "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus.invalid/graph?g0.expr=up%3D%3D0",
      fingerprint: name,
      ...extra,
    })),
  };
}

export async function listAlerts(request: APIRequestContext, token: string, projectId: number, query = ""): Promise<Alert[]> {
  const response = await request.get(`${alertsPath(projectId)}${query}`, { headers: asToken(token) });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as Alert[];
}
