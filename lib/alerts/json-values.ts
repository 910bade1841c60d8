/** Helpers for parsed JSON values. Pure. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Ruby's `blank?` as GitLab applies it to payload values: nil, false, empty or whitespace-only. */
export function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.keys(value).length === 0;
  return false;
}

/**
 * A payload as the alert's page shows it: indented by two spaces when that stays within `limit` characters, else on
 * one line. Indenting adds a line and the indentation of its level to each value, so a deep payload of many small
 * values would grow many times over; the indented length is counted before it is made.
 */
export function displayedJson(value: unknown, limit: number): string {
  const compact = JSON.stringify(value) ?? "";
  return compact.length + indentationLength(value) <= limit ? JSON.stringify(value, null, 2) : compact;
}

/** What `JSON.stringify(value, null, 2)` adds to the compact form: line breaks, indentation and a space after keys. */
function indentationLength(value: unknown): number {
  let added = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, level] = pending.pop()!;
    const items = Array.isArray(current) ? current : isPlainObject(current) ? Object.values(current) : null;
    if (items === null || items.length === 0) continue;
    added += items.length * (1 + 2 * (level + 1)) + 1 + 2 * level + (Array.isArray(current) ? 0 : items.length);
    for (const item of items) pending.push([item, level + 1]);
  }
  return added;
}

/**
 * The start of a value's compact JSON, at least `limit` characters of it when it is longer: what a glance at a value
 * shows, written only as far as it is shown (a long string is cut before it is quoted, a large object's later keys
 * are never written).
 */
export function jsonPreview(value: unknown, limit: number): string {
  let preview = "";
  const pending: ({ text: string } | { value: unknown })[] = [{ value }];
  while (pending.length > 0 && preview.length <= limit) {
    const next = pending.pop()!;
    if ("text" in next) {
      preview += next.text;
      continue;
    }
    const current = next.value;
    if (Array.isArray(current)) {
      preview += "[";
      pending.push({ text: "]" });
      for (let index = Math.min(current.length, limit) - 1; index >= 0; index--) {
        pending.push({ value: current[index] });
        if (index > 0) pending.push({ text: "," });
      }
    } else if (isPlainObject(current)) {
      preview += "{";
      pending.push({ text: "}" });
      const keys = Object.keys(current).slice(0, limit);
      for (let index = keys.length - 1; index >= 0; index--) {
        pending.push({ value: current[keys[index]!] });
        pending.push({ text: `${index > 0 ? "," : ""}${JSON.stringify(keys[index]!.slice(0, limit + 1))}:` });
      }
    } else {
      preview += JSON.stringify(typeof current === "string" ? current.slice(0, limit + 1) : current) ?? "null";
    }
  }
  return preview;
}
