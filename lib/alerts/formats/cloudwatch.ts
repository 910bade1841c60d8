import { deepSizeProblem } from "../deep-size";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, hostList, limits, nullableTruncate, parseTime, truncate } from "../normalize";
import { formatIdentity, httpLink, identifierValue, objectAt, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/** Only Amazon SNS's own confirmation URLs are shown to Maintainers to open: `https://sns.<region>.amazonaws.com/…`. */
const snsHost = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** The alarm a notification's `Message` carries, parsed once per body (detection and reading both ask). */
const parsedMessages = new WeakMap<Record<string, unknown>, Record<string, unknown> | null>();

function parsedMessage(body: Record<string, unknown>): Record<string, unknown> | null {
  if (isPlainObject(body.Message)) return body.Message;
  if (typeof body.Message !== "string") return null;
  let parsed = parsedMessages.get(body);
  if (parsed === undefined) {
    parsed = parseAlarm(body.Message);
    parsedMessages.set(body, parsed);
  }
  return parsed;
}

/**
 * The text of `Message` as JSON, within GitLab's payload limits where it will be kept (one level down in the stored
 * payload): the body's own check saw it as a string, however deep its JSON is.
 */
function parseAlarm(message: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  return isPlainObject(parsed) && deepSizeProblem({ Message: parsed }) === null ? parsed : null;
}

function isCloudWatchAlarm(message: Record<string, unknown> | null): message is Record<string, unknown> {
  return message !== null && typeof message.AlarmName === "string" && typeof message.NewStateValue === "string";
}

/** An SNS message: a notification carrying a CloudWatch alarm, or a subscription's (un)confirmation. */
function isSnsCloudWatchMessage(body: Record<string, unknown>): boolean {
  if (typeof body.TopicArn !== "string") return false;
  if (body.Type === "Notification") return isCloudWatchAlarm(parsedMessage(body));
  return (body.Type === "SubscriptionConfirmation" || body.Type === "UnsubscribeConfirmation") && typeof body.SubscribeURL === "string";
}

function snsConfirmationUrl(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && snsHost.test(url.hostname) ? url.href : null;
  } catch {
    return null;
  }
}

function readSnsMessage(body: Record<string, unknown>, now: Date): FormatReading {
  if (!isSnsCloudWatchMessage(body)) return { kind: "invalid", errors: ["The payload is not an Amazon SNS message carrying a CloudWatch alarm."] };
  if (body.Type === "UnsubscribeConfirmation") return { kind: "ignored", reason: "SNS unsubscribe confirmation" };
  if (body.Type === "SubscriptionConfirmation") {
    const subscribeUrl = snsConfirmationUrl(body.SubscribeURL);
    if (!subscribeUrl) return { kind: "invalid", errors: ["'SubscribeURL' is not an Amazon SNS URL"] };
    return { kind: "subscription", confirmation: { topicArn: body.TopicArn as string, subscribeUrl, receivedAt: now.toISOString() } };
  }
  const alarm = parsedMessage(body)!;
  const state = alarm.NewStateValue;
  // INSUFFICIENT_DATA says nothing about the problem: the alarm neither fires nor recovers.
  if (state !== "ALARM" && state !== "OK") return { kind: "ignored", reason: `CloudWatch alarm state ${String(state)}` };
  const trigger = objectAt(alarm, "Trigger");
  const dimensions = Array.isArray(trigger.Dimensions) ? trigger.Dimensions.map((dimension) => (isPlainObject(dimension) ? dimension.value : null)) : [];
  const changedAt = parseTime(alarm.StateChangeTime);
  const identity = stringValue(alarm.AlarmArn) ?? [identifierValue(alarm.AWSAccountId), stringValue(alarm.Region), alarm.AlarmName].join("/");
  const description = [stringValue(alarm.AlarmDescription), stringValue(alarm.NewStateReason)].filter((part) => part !== null).join("\n\n");
  return {
    kind: "events",
    events: [
      {
        alert: {
          title: truncate(stringValue(alarm.AlarmName) ?? defaultAlertTitle, limits.title),
          description: nullableTruncate(description, limits.description),
          startedAt: changedAt ?? now,
          endedAt: state === "OK" ? (changedAt ?? now) : null,
          service: nullableTruncate(trigger.Namespace, limits.service),
          monitoringTool: "Amazon CloudWatch",
          hosts: hostList(dimensions),
          // A CloudWatch alarm carries no severity: critical, GitLab's default for a payload that names none.
          severity: "critical",
          environmentName: null,
          action: state === "OK" ? "resolve" : "trigger",
          fingerprintSource: formatIdentity("cloudwatch", identity),
        },
        // Stored with the alarm parsed, so it reads as JSON on the alert's page.
        payload: { ...body, Message: alarm },
      },
    ],
  };
}

/** `arn:aws:cloudwatch:<region>:<account>:alarm:<name>` → the alarm in the CloudWatch console. */
function consoleLink(alarm: Record<string, unknown>) {
  const arn = stringValue(alarm.AlarmArn)?.split(":");
  if (!arn || arn.length < 7 || arn[2] !== "cloudwatch" || !/^[a-z0-9-]+$/.test(arn[3]!)) return [];
  const name = arn.slice(6).join(":");
  return httpLink("Alarm in the CloudWatch console", `https://console.aws.amazon.com/cloudwatch/home?region=${arn[3]}#alarmsV2:alarm/${encodeURIComponent(name)}`);
}

/**
 * Amazon CloudWatch alarms delivered by SNS: the `Notification` whose `Message` is the alarm; `NewStateValue` ALARM
 * fires and OK resolves, grouped by the alarm's ARN. A `SubscriptionConfirmation` is kept for Maintainers to confirm by
 * hand: the receiver never opens a URL it was sent.
 */
export const cloudWatchFormat: PayloadFormatDefinition = {
  id: "cloudwatch",
  detect: isSnsCloudWatchMessage,
  read: readSnsMessage,
  links: (stored) => consoleLink(objectAt(stored, "Message")),
};
