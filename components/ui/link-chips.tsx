import Link from "next/link";

/** A list's filter as links, one per value, the current one marked for assistive technology and styled as chosen. */
export function LinkChips({
  label,
  chips,
  current,
  href,
}: {
  label: string;
  chips: readonly { value: string; label: string }[];
  current: string;
  href: (value: string) => string;
}) {
  return (
    <nav className="chips" aria-label={label}>
      {chips.map(({ value, label: text }) => (
        <Link key={value} className="chip" aria-current={value === current ? "page" : undefined} href={href(value)}>
          {text}
        </Link>
      ))}
    </nav>
  );
}
