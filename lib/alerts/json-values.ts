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

/** The nesting depth of a JSON value: a scalar is 0, each object or array level adds one. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (Array.isArray(current) || isPlainObject(current)) {
      const level = depth + 1;
      if (level > deepest) deepest = level;
      for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, level]);
    }
  }
  return deepest;
}
