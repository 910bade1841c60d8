import type { ReactNode, Ref } from "react";

type Tone = "error" | "success" | "info" | "warning";

/**
 * A flash message. Errors are announced as alerts; other tones politely, as status updates. A `focusable` notice can
 * be given the focus by script (not by Tab), for a message the reader must not miss.
 */
export function Notice({
  tone = "info",
  children,
  title,
  ref,
  focusable,
}: {
  tone?: Tone;
  children: ReactNode;
  title?: string;
  ref?: Ref<HTMLDivElement>;
  focusable?: boolean;
}) {
  return (
    <div ref={ref} tabIndex={focusable ? -1 : undefined} className={`notice notice-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {title ? <strong className="notice-title">{title}</strong> : null}
      {children}
    </div>
  );
}
