import type { PayloadAttributeMapping } from "../fields";
import type { NormalizedAlert } from "../normalize";

/**
 * The payload formats the receiver reads on its own. Pure, shared with the forms: the order is the order detection
 * tries them in (the generic format, which takes anything, comes last).
 */
export const payloadFormats = ["alertmanager", "grafana", "pagerduty", "azure", "cloudwatch", "sentry", "datadog", "google_cloud", "new_relic", "zabbix", "nagios", "kibana", "uptime_kuma", "grafana_oncall", "opsgenie", "generic"] as const;
export type PayloadFormat = (typeof payloadFormats)[number];

/** An integration's format setting: `auto` detects the format of each payload, any other names the one to read. */
export const payloadFormatSettings = ["auto", ...payloadFormats] as const;
export type PayloadFormatSetting = (typeof payloadFormatSettings)[number];

export const payloadFormatLabels: Record<PayloadFormat, string> = {
  alertmanager: "Prometheus Alertmanager",
  grafana: "Grafana alerting",
  pagerduty: "PagerDuty Events API v2",
  azure: "Azure Monitor (common alert schema)",
  cloudwatch: "Amazon CloudWatch via SNS",
  sentry: "Sentry",
  datadog: "Datadog",
  google_cloud: "Google Cloud Monitoring (webhook schema 1.2)",
  new_relic: "New Relic workflow webhook (default template)",
  zabbix: "Zabbix (the documented webhook media type)",
  nagios: "Nagios or Icinga (the documented notification command)",
  kibana: "Elastic Kibana (the documented webhook connector body)",
  uptime_kuma: "Uptime Kuma (webhook, JSON preset)",
  grafana_oncall: "Grafana OnCall formatted webhook",
  opsgenie: "Opsgenie Alert API (create, acknowledge and close by alias)",
  generic: "Generic (HTTP endpoint)",
};

/** The tool's name alone, where space is short (the integration list). */
export const payloadFormatShortLabels: Record<PayloadFormat, string> = {
  alertmanager: "Alertmanager",
  grafana: "Grafana",
  pagerduty: "PagerDuty",
  azure: "Azure Monitor",
  cloudwatch: "CloudWatch",
  sentry: "Sentry",
  datadog: "Datadog",
  google_cloud: "Cloud Monitoring",
  new_relic: "New Relic",
  zabbix: "Zabbix",
  nagios: "Nagios",
  kibana: "Kibana",
  uptime_kuma: "Uptime Kuma",
  grafana_oncall: "Grafana OnCall",
  opsgenie: "Opsgenie",
  generic: "Generic",
};

export const payloadFormatSettingLabels: Record<PayloadFormatSetting, string> = { auto: "Detect automatically", ...payloadFormatLabels };

/** A link the source put in its payload (a dashboard, the rule, the event in the tool), shown on the alert's page. */
export interface SourceLink {
  label: string;
  url: string;
}

/** One alert event a payload carries, and what is stored with the alert as its payload. */
export interface AlertEvent {
  alert: NormalizedAlert;
  payload: unknown;
}

/**
 * An SNS `SubscriptionConfirmation`: SNS waits for someone to open `subscribeUrl`. The receiver never fetches a URL
 * from a payload; it keeps this for the integration's Maintainers to confirm by hand.
 */
export interface SubscriptionConfirmation {
  topicArn: string;
  subscribeUrl: string;
  receivedAt: string;
}

/** What a payload, read in one format, asks of the receiver. */
export type FormatReading =
  | { kind: "events"; events: AlertEvent[] }
  | { kind: "subscription"; confirmation: SubscriptionConfirmation }
  /** A well-formed message that opens, changes or closes nothing (an SNS unsubscribe notice, an INSUFFICIENT_DATA alarm). */
  | { kind: "ignored"; reason: string }
  | { kind: "invalid"; errors: string[] };

/** What a receiver answers, in the format's own shape where the format has one. */
export interface FormatAnswer {
  status: number;
  body: unknown;
}

/** What the receiver recorded for each event (null where the event matched nothing to change). */
export interface RecordedAlert {
  iid: number;
  title: string;
}

/**
 * One payload format: how to recognize it, how to read it into alert events (each with the action, severity and
 * identity the format defines), which links its stored payload carries, and, where the tool expects one, its answer.
 */
export interface PayloadFormatDefinition {
  id: PayloadFormat;
  detect(body: Record<string, unknown>): boolean;
  read(body: Record<string, unknown>, now: Date, mapping: PayloadAttributeMapping | null): FormatReading;
  links(storedPayload: unknown): SourceLink[];
  answer?(recorded: (RecordedAlert | null)[], events: AlertEvent[]): FormatAnswer;
  invalidAnswer?(errors: string[]): FormatAnswer;
}
