const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 hours ago" / "in 2 days", relative to `now`. Pure. */
export function relativeTimeText(value: Date, now: Date): string {
  const seconds = Math.round((value.getTime() - now.getTime()) / 1000);
  if (Math.abs(seconds) < 45) return "just now";
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/**
 * A time as "3 hours ago", with the exact UTC instant in the tooltip and the machine-readable attribute. The server
 * renders it against the request's clock, so the text does not depend on where or when the page is hydrated.
 */
export function RelativeTime({ value, now }: { value: Date | string; now: Date }) {
  const date = typeof value === "string" ? new Date(value) : value;
  const exact = date.toISOString().replace("T", " ").replace(/\.\d{3}Z$/, " UTC");
  return (
    <time dateTime={date.toISOString()} title={exact}>
      {relativeTimeText(date, now)}
    </time>
  );
}
