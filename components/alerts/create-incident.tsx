"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

/** The alert's incident: a link to its issue, or "Create incident" for whoever may open one. */
export function AlertIncident({
  issueIid,
  issuesPath,
  create,
}: {
  issueIid: number | null;
  /** The project's issues page; the incident is `${issuesPath}/${iid}`. */
  issuesPath: string;
  create?: () => Promise<ActionResult<{ issueIid: number }>>;
}) {
  const router = useRouter();
  const [created, setCreated] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function onCreate() {
    if (!create) return;
    setFailure(null);
    startTransition(async () => {
      const result = await create();
      if (!result.ok) {
        setFailure(result.message);
        return;
      }
      setCreated(result.data.issueIid);
      router.refresh();
    });
  }

  const linked = issueIid ?? created;
  return (
    <div className="stack alert-incident">
      {linked !== null ? (
        <Link href={`${issuesPath}/${linked}`}>Incident #{linked}</Link>
      ) : create ? (
        <div>
          <button type="button" className="button button-small" disabled={pending} onClick={onCreate}>
            Create incident
          </button>
        </div>
      ) : (
        <span>None</span>
      )}
      {created !== null ? <Notice tone="success">Incident #{created} created for this alert.</Notice> : null}
      {failure ? <Notice tone="error">{failure}</Notice> : null}
    </div>
  );
}
