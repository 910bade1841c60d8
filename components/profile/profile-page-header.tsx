import Link from "next/link";
import type { ReactNode } from "react";

/** The top of a page under Profile: the way back to the profile, the page's title, and what the page is for. */
export function ProfilePageHeader({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/profile">Profile</Link> / {title}
      </div>
      <div className="page-header">
        <div>
          <h1>{title}</h1>
          <p className="muted">{children}</p>
        </div>
      </div>
    </>
  );
}
