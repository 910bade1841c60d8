import { relativeTimeText } from "@/lib/time/relative";

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
