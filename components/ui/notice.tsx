import type { ReactNode } from "react";

type Tone = "error" | "success" | "info" | "warning";

/** A flash message. Errors are announced as alerts; other tones politely, as status updates. */
export function Notice({ tone = "info", children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <div className={`notice notice-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {title ? <strong className="notice-title">{title}</strong> : null}
      {children}
    </div>
  );
}
