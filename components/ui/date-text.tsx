/** A date as people read it, with the exact instant in the machine-readable attribute. */
export function DateText({ value, empty = "Never" }: { value: Date | string | null; empty?: string }) {
  if (value === null) return <>{empty}</>;
  const date = typeof value === "string" ? new Date(value) : value;
  // A fixed locale and zone: the server renders it, and the text must not depend on where that server runs.
  const text = date.toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
  return <time dateTime={date.toISOString()}>{text}</time>;
}
