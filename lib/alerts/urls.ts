import "server-only";
import { env } from "@/lib/env";
import type { AlertIntegrationRow, AlertRow } from "@/lib/db/schema";
import type { ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

/** The alert's page: `{base}/:namespace/:project/-/alert_management/:iid/details`, as GitLab links it. */
export function alertDetailsUrl(view: Pick<ProjectView, "project" | "namespace">, alert: Pick<AlertRow, "iid">): string {
  return `${env.EXTERNAL_URL}/${projectFullPath(view)}/-/alert_management/${alert.iid}/details`;
}

/**
 * The URL an external tool posts to, as GitLab shows it: a Prometheus integration's is the project's Prometheus
 * endpoint (`/prometheus/alerts/notify.json`, where Alertmanager sends and a project has one Prometheus integration);
 * the legacy HTTP one's is `/alerts/notify.json`; a heartbeat's is its ping URL (`/alerts/heartbeat/…`, which takes GET
 * as well as POST); every other integration has its own, whose name segment is for people and is not checked.
 */
export function integrationUrl(view: Pick<ProjectView, "project" | "namespace">, integration: AlertIntegrationRow): string {
  const project = `${env.EXTERNAL_URL}/${projectFullPath(view)}`;
  if (integration.type === "prometheus") return `${project}/prometheus/alerts/notify.json`;
  if (integration.endpointIdentifier === "legacy") return `${project}/alerts/notify.json`;
  if (integration.type === "heartbeat") return `${project}/alerts/heartbeat/${integrationSlug(integration)}/${integration.endpointIdentifier}`;
  return `${project}/alerts/notify/${integrationSlug(integration)}/${integration.endpointIdentifier}.json`;
}

/** The name segment of an integration's URLs: for people, never checked. */
function integrationSlug(integration: AlertIntegrationRow): string {
  return integration.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || `${integration.type}-endpoint`;
}

/**
 * The URLs that take other tools' own APIs for an integration, for tools that send to those services and let the URL
 * be set: PagerDuty's Events API v2 (`…/v2/enqueue`; the key goes in the event's `routing_key`) and Opsgenie's Alert
 * API (`…/v2/alerts`, and its `/:alias/acknowledge` and `/:alias/close`; the key as `GenieKey <key>`). A heartbeat
 * takes pings, not alerts: it has neither.
 */
export function senderApiUrls(
  view: Pick<ProjectView, "project" | "namespace">,
  integration: AlertIntegrationRow,
): { pagerduty_events_url: string | null; opsgenie_alerts_url: string | null } {
  if (integration.type === "heartbeat") return { pagerduty_events_url: null, opsgenie_alerts_url: null };
  // The integration's URL without `.json`, which the tools' own API paths follow.
  const base = `${env.EXTERNAL_URL}/${projectFullPath(view)}/alerts/notify/${integrationSlug(integration)}/${integration.endpointIdentifier}`;
  return { pagerduty_events_url: `${base}/v2/enqueue`, opsgenie_alerts_url: `${base}/v2/alerts` };
}
