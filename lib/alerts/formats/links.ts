import { isPlainObject } from "../json-values";
import type { NormalizedAlert } from "../normalize";
import type { FormatReading, SourceLink } from "./types";

/**
 * The most links an alert's page and API show from its payload; the formats stop reading a payload's lists of links
 * there, however long they are.
 */
export const maxSourceLinks = 20;

/**
 * A link from a payload, kept only when it is an absolute http(s) URL: the alert's page renders it as a link, and a
 * payload is no place to take a `javascript:` URL from. Pure.
 */
export function httpLink(label: string, value: unknown): SourceLink[] {
  if (typeof value !== "string" || value.trim() === "") return [];
  try {
    const url = new URL(value.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? [{ label, url: url.href }] : [];
  } catch {
    return [];
  }
}

/** The object at `key`, or an empty one: payload readers look into nested objects that may be missing. */
export function objectAt(value: unknown, key: string): Record<string, unknown> {
  const found = isPlainObject(value) ? value[key] : undefined;
  return isPlainObject(found) ? found : {};
}

/** A non-blank string, trimmed, or null. */
export function stringValue(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** Text or a number as a string (identifiers arrive as either), or null. */
export function identifierValue(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return stringValue(value);
}

/**
 * What a format's alerts are fingerprinted by: the format's own identity of an alert, prefixed with the format so two
 * tools that happen to use the same identifier never group into one alert.
 */
export function formatIdentity(format: string, ...parts: (string | null)[]): string {
  return `${format}:${parts.map((part) => part ?? "").join("/")}`;
}

/** The reading of a payload that carries one alert event, as most tools' notifications do. */
export function oneAlertEvent(alert: NormalizedAlert, payload: unknown): FormatReading {
  return { kind: "events", events: [{ alert, payload }] };
}
