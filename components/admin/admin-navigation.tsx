import Link from "next/link";

const sections = [
  { key: "users", href: "/admin/users", label: "Users" },
  { key: "settings", href: "/admin/application_settings/general", label: "Settings" },
] as const;

/** The admin area's sections, the current one marked for assistive technology. */
export function AdminNavigation({ current }: { current: (typeof sections)[number]["key"] }) {
  return (
    <nav aria-label="Admin area" className="breadcrumbs">
      {sections.map((section, index) => (
        <span key={section.key}>
          {index > 0 ? " · " : null}
          <Link href={section.href} aria-current={section.key === current ? "page" : undefined}>
            {section.label}
          </Link>
        </span>
      ))}
    </nav>
  );
}
