import type { PayloadAttributeMapping } from "../fields";
import { alertmanagerFormat } from "./alertmanager";
import { azureFormat } from "./azure";
import { cloudWatchFormat } from "./cloudwatch";
import { datadogFormat } from "./datadog";
import { genericFormat } from "./generic";
import { googleCloudFormat } from "./google-cloud";
import { grafanaFormat } from "./grafana";
import { grafanaOnCallFormat } from "./grafana-oncall";
import { kibanaFormat } from "./kibana";
import { maxSourceLinks } from "./links";
import { nagiosFormat } from "./nagios";
import { newRelicFormat } from "./new-relic";
import { opsgenieFormat } from "./opsgenie";
import { pagerDutyFormat } from "./pagerduty";
import { sentryFormat } from "./sentry";
import { uptimeKumaFormat } from "./uptime-kuma";
import { zabbixFormat } from "./zabbix";
import {
  payloadFormats,
  type AlertEvent,
  type FormatAnswer,
  type PayloadFormat,
  type PayloadFormatDefinition,
  type PayloadFormatSetting,
  type RecordedAlert,
  type SourceLink,
} from "./types";

/** Every format the receiver reads, by name. Pure. */
export const payloadFormatDefinitions: Record<PayloadFormat, PayloadFormatDefinition> = {
  alertmanager: alertmanagerFormat,
  grafana: grafanaFormat,
  pagerduty: pagerDutyFormat,
  azure: azureFormat,
  cloudwatch: cloudWatchFormat,
  sentry: sentryFormat,
  datadog: datadogFormat,
  google_cloud: googleCloudFormat,
  new_relic: newRelicFormat,
  zabbix: zabbixFormat,
  nagios: nagiosFormat,
  kibana: kibanaFormat,
  uptime_kuma: uptimeKumaFormat,
  grafana_oncall: grafanaOnCallFormat,
  opsgenie: opsgenieFormat,
  generic: genericFormat,
};

/** The first format, in `payloadFormats` order, that recognizes the body; the generic format takes the rest. */
export function detectPayloadFormat(body: Record<string, unknown>): PayloadFormat {
  return payloadFormats.find((format) => payloadFormatDefinitions[format].detect(body)) ?? "generic";
}

function hasMapping(mapping: PayloadAttributeMapping | null): boolean {
  return mapping !== null && Object.keys(mapping).length > 0;
}

/**
 * The format a body is read in: the one the URL implies (the PagerDuty events URL, the Opsgenie Alert API URL), else the generic format when the
 * integration has a custom mapping (a mapping is the Maintainer's own reading of their tool's payload, so it wins),
 * else the integration's explicit format setting, else the format detected.
 */
export function choosePayloadFormat(
  body: Record<string, unknown>,
  integration: { payloadFormat: PayloadFormatSetting; payloadAttributeMapping: PayloadAttributeMapping | null },
  implied: PayloadFormat | null = null,
): PayloadFormat {
  if (implied) return implied;
  if (hasMapping(integration.payloadAttributeMapping)) return "generic";
  if (integration.payloadFormat !== "auto") return integration.payloadFormat;
  return detectPayloadFormat(body);
}

/** The answer to a payload whose events were recorded: the format's own, else 200 with the alerts it recorded. */
export function answerForEvents(format: PayloadFormat, recorded: (RecordedAlert | null)[], events: AlertEvent[]): FormatAnswer {
  const definition = payloadFormatDefinitions[format];
  return definition.answer?.(recorded, events) ?? { status: 200, body: recorded.filter((alert) => alert !== null) };
}

/** The answer to a payload the format refuses: the format's own error body, else GitLab's 400 with a message. */
export function answerForInvalid(format: PayloadFormat, errors: string[]): FormatAnswer {
  return payloadFormatDefinitions[format].invalidAnswer?.(errors) ?? { status: 400, body: { message: errors.join(" ") } };
}

/**
 * The links an alert's stored payload carries, read in the format the alert arrived in (none for older alerts), at most
 * `maxSourceLinks`.
 */
export function sourceLinks(format: string | null, storedPayload: unknown): SourceLink[] {
  if (!format || !(payloadFormats as readonly string[]).includes(format)) return [];
  return payloadFormatDefinitions[format as PayloadFormat].links(storedPayload).slice(0, maxSourceLinks);
}
