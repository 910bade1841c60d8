/** The constraint a unique-violation error names, or undefined for any other error; works for both drivers. */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  for (let current: unknown = error; current && typeof current === "object"; current = (current as { cause?: unknown }).cause) {
    const candidate = current as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
    if (candidate.code === "23505") {
      const name = candidate.constraint_name ?? candidate.constraint;
      return typeof name === "string" ? name : "";
    }
  }
  return undefined;
}
