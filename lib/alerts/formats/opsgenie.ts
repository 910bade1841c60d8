import { randomUUID } from "node:crypto";
import type { AlertSeverity } from "../fields";
import { isPlainObject } from "../json-values";
import { defaultAlertTitle, limits, nullableTruncate, truncate, type AlertAction } from "../normalize";
import { formatIdentity, httpLink, oneAlertEvent, stringValue } from "./links";
import type { FormatReading, PayloadFormatDefinition } from "./types";

/**
 * Opsgenie's Alert API, for the tools and scripts that send to Opsgenie (Alertmanager's `opsgenie_configs`, Grafana's
 * Opsgenie contact point, the SDKs) and can be pointed at another URL: `POST …/v2/alerts` creates an alert (or counts
 * a repeat of an open one with the same `alias`), `POST …/v2/alerts/:alias/acknowledge` and `…/close` with
 * `identifierType=alias` acknowledge and close it. The receiver turns the last two into a body of their own (the
 * request's, with `alias` and `opsgenie_action`), so the format reads every request from its body.
 */
export const opsgenieActions = { create: "trigger", acknowledge: "acknowledge", close: "resolve" } as const satisfies Record<string, AlertAction>;
export type OpsgenieAction = keyof typeof opsgenieActions;

/** Opsgenie's five priorities through our severities; P3 when none is given, as Opsgenie defaults. */
const priorities: Record<string, AlertSeverity> = { P1: "critical", P2: "high", P3: "medium", P4: "low", P5: "info" };
/** Opsgenie's own limits on a create request's fields, in characters. */
const maxMessageLength = 130;
const maxAliasLength = 512;

/** A field and what is wrong with it, in Opsgenie's words. */
type FieldError = [field: string, message: string];

function createErrors(body: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const message = stringValue(body.message);
  if (message === null) errors.push(["message", "Message can not be empty."]);
  else if (message.length > maxMessageLength) errors.push(["message", `Message can not be longer than ${maxMessageLength} characters.`]);
  if (body.alias !== undefined && (typeof body.alias !== "string" || body.alias.length > maxAliasLength)) {
    errors.push(["alias", `Alias must be a string of at most ${maxAliasLength} characters.`]);
  }
  if (body.priority !== undefined && !(typeof body.priority === "string" && Object.hasOwn(priorities, body.priority))) {
    errors.push(["priority", "Priority should be one of [P1, P2, P3, P4, P5]."]);
  }
  return errors;
}

/** Errors travel through the receiver as text, `field: message`; Opsgenie answers them as an object by field. */
const fieldSeparator = ": ";

function readOpsgenieRequest(body: Record<string, unknown>, now: Date): FormatReading {
  const requested = body.opsgenie_action ?? "create";
  if (typeof requested !== "string" || !Object.hasOwn(opsgenieActions, requested)) {
    return { kind: "invalid", errors: [`opsgenie_action${fieldSeparator}Action should be one of [${Object.keys(opsgenieActions).join(", ")}].`] };
  }
  const action = opsgenieActions[requested as OpsgenieAction];
  if (action === "trigger") {
    const errors = createErrors(body);
    if (errors.length > 0) return { kind: "invalid", errors: errors.map(([field, message]) => `${field}${fieldSeparator}${message}`) };
  }
  const alias = stringValue(body.alias);
  if (action !== "trigger" && alias === null) return { kind: "invalid", errors: [`identifier${fieldSeparator}Identifier can not be empty.`] };
  return oneAlertEvent(
    {
      title: truncate(stringValue(body.message) ?? defaultAlertTitle, limits.title),
      description: nullableTruncate(body.description, limits.description),
      startedAt: now,
      endedAt: action === "resolve" ? now : null,
      service: nullableTruncate(body.entity, limits.service),
      // A source that is a URL (Alertmanager sends its own) is a link back, not the tool's name.
      monitoringTool: httpLink("Source", body.source).length > 0 ? "Opsgenie Alert API" : (nullableTruncate(body.source, limits.monitoringTool) ?? "Opsgenie Alert API"),
      hosts: [],
      severity: priorities[typeof body.priority === "string" ? body.priority : "P3"] ?? "medium",
      environmentName: null,
      action,
      // Without an alias every request is an alert of its own, as in Opsgenie.
      fingerprintSource: formatIdentity("opsgenie", alias ?? randomUUID()),
    },
    body,
  );
}

/** Opsgenie's answer to a request it accepted: processed afterwards there, already here. */
function accepted() {
  return { status: 202, body: { result: "Request will be processed", requestId: randomUUID() } };
}

export const opsgenieFormat: PayloadFormatDefinition = {
  id: "opsgenie",
  // `message` alone is too common a key to claim a payload by: the Opsgenie URL (or the integration's setting) says so.
  detect: () => false,
  read: readOpsgenieRequest,
  links: (stored) => httpLink("Source", isPlainObject(stored) ? stored.source : undefined),
  answer: accepted,
  invalidAnswer: (errors) => ({
    status: 422,
    body: {
      message: "Request body is not processable. Please check the errors.",
      errors: Object.fromEntries(
        errors.map((error) => {
          const at = error.indexOf(fieldSeparator);
          return at < 0 ? ["request", error] : [error.slice(0, at), error.slice(at + fieldSeparator.length)];
        }),
      ),
      requestId: randomUUID(),
    },
  }),
};

