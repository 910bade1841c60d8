/**
 * The rules of silences, pure so pages and tests use them: the matcher language (Alertmanager's, over an alert's
 * fields) and when a silence's window is open. Patterns are only ever matched in SQL (`lib/alerts/silences.ts`), where
 * PostgreSQL's regex engine runs them off the server's event loop; the other matchers are also decided here
 * (`matcherMayHold`), so ingestion skips the silences that cannot match without asking the database.
 */

export const silenceMatcherOperators = ["=", "!=", "=~", "!~"] as const;
export type SilenceMatcherOperator = (typeof silenceMatcherOperators)[number];

/** The alert fields a matcher names; `payload.<dotted.path>` names any field of the payload. */
export const silenceMatcherFields = ["integration", "service", "environment", "severity", "title", "monitoring_tool", "host"] as const;

export interface SilenceMatcher {
  /** One of `silenceMatcherFields`, or `payload.` and a dotted path. */
  name: string;
  op: SilenceMatcherOperator;
  /** The value, or for `=~` and `!~` the pattern as written (matched anchored at both ends, as Alertmanager does). */
  value: string;
}

/** At most this many matchers a silence, each at most this long as written, a pattern at most this long. */
export const silenceLimits = { matchers: 16, matcherLength: 1024, patternLength: 256, payloadPathSegments: 16 } as const;

/** A matcher, a list or the time of a window could not be read; the message says which and why. */
export class SilenceRuleError extends Error {}

const namePattern = /^(integration|service|environment|severity|title|monitoring_tool|host|payload(?:\.[^.\s"=!~,{}]+)+)$/;

/**
 * Constructs that would take PostgreSQL's regex engine off its automaton (back-references, lookaround) or that it
 * reads differently from Alertmanager's (embedded options other than a leading `(?i)`): refused when saved, so every
 * pattern runs in time bounded by its text.
 */
const unsafePatternConstructs: { pattern: RegExp; problem: string }[] = [
  { pattern: /\\[1-9]|\\k</, problem: "back-references are not supported" },
  { pattern: /\(\?<?[=!]/, problem: "lookahead and lookbehind are not supported" },
  { pattern: /\(\?[a-zA-Z]/, problem: "embedded options other than a leading (?i) are not supported" },
  { pattern: /\*\*\*/, problem: "director prefixes (***) are not supported" },
];

function patternProblem(value: string): string | null {
  if (value.length > silenceLimits.patternLength) return `the pattern is longer than ${silenceLimits.patternLength} characters`;
  const body = value.startsWith("(?i)") ? value.slice(4) : value;
  for (const { pattern, problem } of unsafePatternConstructs) if (pattern.test(body)) return problem;
  // Unbalanced groups would break out of the anchoring group; PostgreSQL checks the rest of the syntax when saved.
  if (!balanced(body)) return "the pattern has unbalanced parentheses or brackets";
  return null;
}

/** Whether the pattern's brackets and parentheses (outside escapes and classes) balance. */
function balanced(body: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0 && !inClass;
}

/** The pattern as PostgreSQL matches it: anchored at both ends, a leading `(?i)` kept first, where ARE wants it. */
export function anchoredPattern(value: string): string {
  return value.startsWith("(?i)") ? `(?i)^(?:${value.slice(4)})$` : `^(?:${value})$`;
}

/** Reads one matcher, `name="value"` with one of `=`, `!=`, `=~`, `!~`; the value may be quoted (`\"`, `\\`, `\n`). */
export function parseMatcher(text: string): SilenceMatcher {
  const written = text.trim();
  const fail = (problem: string) => new SilenceRuleError(`matcher ${JSON.stringify(written)} ${problem}`);
  if (written.length > silenceLimits.matcherLength) throw fail(`is longer than ${silenceLimits.matcherLength} characters`);
  const found = /^([^=!~\s]+)\s*(=~|!~|!=|=)\s*(.*)$/s.exec(written);
  if (!found) throw fail('is not of the form name="value" (with =, !=, =~ or !~)');
  const [, name, op, rawValue] = found as unknown as [string, string, SilenceMatcherOperator, string];
  if (!namePattern.test(name)) throw fail(`names no alert field: use ${silenceMatcherFields.join(", ")} or payload.<path>`);
  if (name.startsWith("payload.") && name.split(".").length - 1 > silenceLimits.payloadPathSegments) {
    throw fail(`has a payload path deeper than ${silenceLimits.payloadPathSegments} keys`);
  }
  const value = unquote(rawValue.trim());
  if (value === null) throw fail("has a value with an unterminated quote");
  if (op === "=~" || op === "!~") {
    const problem = patternProblem(value);
    if (problem) throw fail(`has a pattern that cannot be used: ${problem}`);
  }
  return { name, op, value };
}

/**
 * A quoted value without its quotes and escapes; an unquoted one as it is (Alertmanager takes both). A backslash
 * before anything but `"`, `\\` or `n` stays, so a pattern's `\d` can be written as is, as Alertmanager's classic
 * matchers allow.
 */
function unquote(raw: string): string | null {
  if (!raw.startsWith('"')) return /["\\]/.test(raw) ? null : raw;
  let value = "";
  for (let i = 1; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') return i === raw.length - 1 ? value : null;
    if (c === "\\") {
      const next = raw[++i];
      if (next === "n") value += "\n";
      else if (next === '"' || next === "\\") value += next;
      else if (next === undefined) return null;
      else value += c + next;
    } else value += c;
  }
  return null;
}

/** Splits a list of matchers (`{a="1", b=~"2"}`, or one a line) at the commas and line breaks outside quotes. */
export function splitMatchers(text: string): string[] {
  let body = text.trim();
  if (body.startsWith("{") && body.endsWith("}")) body = body.slice(1, -1);
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted && c === "\\") {
      current += c + (body[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (!quoted && (c === "," || c === "\n")) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

/** Reads a silence's matchers: a list of matcher texts, or one text that lists them. At least one, at most the limit. */
export function parseMatchers(input: string | readonly string[]): SilenceMatcher[] {
  const texts = typeof input === "string" ? splitMatchers(input) : input.flatMap((text) => splitMatchers(text));
  if (texts.length === 0) throw new SilenceRuleError("matchers: at least one matcher is needed");
  if (texts.length > silenceLimits.matchers) throw new SilenceRuleError(`matchers: at most ${silenceLimits.matchers} matchers are allowed`);
  return texts.map(parseMatcher);
}

/** The alert fields that have one value (`integration` has two, its name and id; `host` any number). */
export const singleValuedFields = ["service", "environment", "severity", "title", "monitoring_tool"] as const;

/**
 * The `=` matchers on one-valued fields as one object: a necessary condition of the silence (an alert it matches has
 * each of these values), which the database tests with one containment before the matchers themselves.
 */
export function equalitiesOf(matchers: readonly SilenceMatcher[]): Record<string, string> {
  const equalities: Record<string, string> = {};
  for (const matcher of matchers) {
    if (matcher.op === "=" && (singleValuedFields as readonly string[]).includes(matcher.name)) equalities[matcher.name] = matcher.value;
  }
  return equalities;
}

/** A firing alert's fields, as matchers read them. */
export interface MatchableAlert {
  integration: { id: number; name: string | null };
  title: string;
  severity: string;
  service: string | null;
  environment: string | null;
  monitoringTool: string | null;
  hosts: readonly string[];
  payload: unknown;
}

/**
 * The text a payload path names, as PostgreSQL's `payload #>> path` reads it and the matchers' SQL coalesces it: a
 * string as is, a boolean as `true`/`false`, anything missing or null as the empty string. Undefined where only the
 * database can say: a number or an object is written as PostgreSQL's own text of it (`1.0` stays `1.0`, objects get
 * its spacing), and an array takes path segments as indexes by its rules.
 */
function payloadText(payload: unknown, path: readonly string[]): string | undefined {
  let value = payload;
  for (const key of path) {
    if (Array.isArray(value)) return undefined;
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return "";
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "";
  return undefined;
}

/**
 * The values a matcher's field has for an alert, as the matchers' SQL reads them: a missing field is the empty string
 * (Alertmanager's missing label), `integration` is its name and its id, `host` each host (the empty string when none).
 * Undefined when only the database can say (`payloadText`).
 */
function matchedValues(name: string, alert: MatchableAlert): readonly string[] | undefined {
  switch (name) {
    case "integration":
      return [alert.integration.name ?? "", String(alert.integration.id)];
    case "host":
      return alert.hosts.length === 0 ? [""] : alert.hosts;
    case "service":
      return [alert.service ?? ""];
    case "environment":
      return [alert.environment ?? ""];
    case "severity":
      return [alert.severity];
    case "title":
      return [alert.title];
    case "monitoring_tool":
      return [alert.monitoringTool ?? ""];
  }
  if (!name.startsWith("payload.")) throw new Error(`a saved matcher names ${JSON.stringify(name)}, which parsing refuses`);
  const text = payloadText(alert.payload, name.slice("payload.".length).split("."));
  return text === undefined ? undefined : [text];
}

/**
 * What this process can say of a matcher on an alert: it holds, it fails, or only the database can say, which is so
 * of every pattern (`=~`, `!~` are never run here, whoever wrote them) and of some payload values (`payloadText`).
 */
export function matcherVerdict(matcher: SilenceMatcher, alert: MatchableAlert): "holds" | "fails" | "database" {
  if (matcher.op === "=~" || matcher.op === "!~") return "database";
  const values = matchedValues(matcher.name, alert);
  if (values === undefined) return "database";
  return values.includes(matcher.value) === (matcher.op === "=") ? "holds" : "fails";
}

/** A matcher as written canonically: `name="value"` with the value quoted and escaped. */
export function formatMatcher(matcher: SilenceMatcher): string {
  return `${matcher.name}${matcher.op}"${matcher.value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

// ---------------------------------------------------------------------------------------------------------------
// Windows

export const weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof weekdays)[number];

/**
 * Every week, on each of `days`, from `start_time` to `end_time` (24-hour `HH:MM`) on the wall clock of `time_zone`
 * (an IANA zone). An end at or before the start ends the next day, so a window may span midnight; equal times make it
 * a whole day. The day is the one the window starts on.
 */
export interface WeeklyRecurrence {
  days: Weekday[];
  start_time: string;
  end_time: string;
  time_zone: string;
}

const timeOfDay = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/** Checks a recurrence read from a request; the days come out in week order, each once. */
export function validRecurrence(recurrence: WeeklyRecurrence): WeeklyRecurrence {
  if (recurrence.days.length === 0) throw new SilenceRuleError("recurrence: days needs at least one day");
  const unknown = recurrence.days.find((day) => !weekdays.includes(day));
  if (unknown !== undefined) throw new SilenceRuleError(`recurrence: ${JSON.stringify(unknown)} is not one of ${weekdays.join(", ")}`);
  for (const key of ["start_time", "end_time"] as const) {
    if (!timeOfDay.test(recurrence[key])) throw new SilenceRuleError(`recurrence: ${key} must be a time of day as HH:MM (00:00 to 23:59)`);
  }
  if (!isTimeZone(recurrence.time_zone)) throw new SilenceRuleError(`recurrence: ${JSON.stringify(recurrence.time_zone)} is not a known time zone`);
  return { ...recurrence, days: weekdays.filter((day) => recurrence.days.includes(day)) };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall clock of `zone` at `instant`, as the milliseconds of the same wall-clock reading in UTC. */
function wallClock(instant: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const second = Math.floor(instant / 1000) * 1000;
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) + (instant - second);
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/**
 * The instant a wall-clock reading of `zone` names (as milliseconds of that reading in UTC). A reading the clocks
 * skip (spring forward) is read with the offset before the change, so it lands as far after the jump as it was into
 * the gap; one they show twice (fall back) is its first occurrence: what `Temporal`'s "compatible" does.
 */
export function zonedInstant(wall: number, zone: string): number {
  const offsetBefore = wallClock(wall - 12 * hourMs, zone) - (wall - 12 * hourMs);
  const offsetAfter = wallClock(wall + 12 * hourMs, zone) - (wall + 12 * hourMs);
  const candidates = [wall - offsetBefore, wall - offsetAfter].filter((instant) => wallClock(instant, zone) === wall).sort((a, b) => a - b);
  return candidates[0] ?? wall - offsetBefore;
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(":").map(Number) as [number, number];
  return hours * 60 + minutes;
}

/** The occurrence of a weekly window that starts on the local day `dayWall` (midnight, as UTC milliseconds). */
function occurrence(recurrence: WeeklyRecurrence, dayWall: number): { start: number; end: number } {
  const start = minutesOf(recurrence.start_time);
  const end = minutesOf(recurrence.end_time);
  const endDay = end <= start ? dayWall + dayMs : dayWall;
  return {
    start: zonedInstant(dayWall + start * 60_000, recurrence.time_zone),
    end: zonedInstant(endDay + end * 60_000, recurrence.time_zone),
  };
}

/** When a silence's windows are. */
export type SilenceWindow = { startsAt: Date; endsAt: Date; recurrence: null } | { startsAt: null; endsAt: null; recurrence: WeeklyRecurrence };

/** The window open at `now`, if one is: its bounds. */
export function openWindowAt(silence: SilenceWindow, now: Date): { start: Date; end: Date } | null {
  const at = now.getTime();
  if (!silence.recurrence) {
    return silence.startsAt.getTime() <= at && at < silence.endsAt.getTime() ? { start: silence.startsAt, end: silence.endsAt } : null;
  }
  const { recurrence } = silence;
  const today = Math.floor(wallClock(at, recurrence.time_zone) / dayMs) * dayMs;
  // An open window started today or yesterday (local days): no window is longer than a day.
  for (const dayWall of [today, today - dayMs]) {
    if (!recurrence.days.includes(weekdays[new Date(dayWall).getUTCDay()]!)) continue;
    const window = occurrence(recurrence, dayWall);
    if (window.start <= at && at < window.end) return { start: new Date(window.start), end: new Date(window.end) };
  }
  return null;
}

/** The next window to open after `now` (none for a one-off window that has opened). */
export function nextWindowAfter(silence: SilenceWindow, now: Date): { start: Date; end: Date } | null {
  const at = now.getTime();
  if (!silence.recurrence) return silence.startsAt.getTime() > at ? { start: silence.startsAt, end: silence.endsAt } : null;
  const { recurrence } = silence;
  const today = Math.floor(wallClock(at, recurrence.time_zone) / dayMs) * dayMs;
  for (let day = 0; day <= 8; day++) {
    const dayWall = today + day * dayMs;
    if (!recurrence.days.includes(weekdays[new Date(dayWall).getUTCDay()]!)) continue;
    const window = occurrence(recurrence, dayWall);
    if (window.start > at) return { start: new Date(window.start), end: new Date(window.end) };
  }
  return null;
}

export type SilenceState = "active" | "pending" | "expired";

/** Alertmanager's states: active while a window is open, pending before one, expired once a one-off window closed. */
export function silenceStateAt(silence: SilenceWindow, now: Date): SilenceState {
  if (openWindowAt(silence, now)) return "active";
  return nextWindowAfter(silence, now) ? "pending" : "expired";
}
