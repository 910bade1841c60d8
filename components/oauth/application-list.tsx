"use client";

import { useState } from "react";
import { CopyField } from "@/components/ui/copy-field";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";
import { secretShownOnce } from "./application-form";

export interface ApplicationListItem {
  id: number;
  name: string;
  uid: string;
  redirectUris: string[];
  confidential: boolean;
  scopes: string[];
  createdAt: string;
}

interface ApplicationListProps {
  applications: ApplicationListItem[];
  renewSecret: (id: number) => Promise<ActionResult<{ secret: string }>>;
  remove: (id: number) => Promise<ActionResult>;
}

/** The applications the person registered, with Renew secret and Delete. */
export function ApplicationList({ applications, renewSecret, remove }: ApplicationListProps) {
  const { pendingId, failure, run } = useRowAction();
  const [renewed, setRenewed] = useState<{ id: number; secret: string } | null>(null);

  async function onRenew(application: ApplicationListItem) {
    const question =
      "Are you sure you want to renew this secret? Any applications using the old secret will no longer be able to authenticate.";
    if (!window.confirm(question)) return;
    setRenewed(null);
    // No refresh: the list shows nothing the new secret changes, and the secret itself is shown only here, once.
    const result = await run(application.id, renewSecret, { refresh: false });
    if (result.ok) setRenewed({ id: application.id, secret: result.data.secret });
  }

  async function onDelete(application: ApplicationListItem) {
    if (!window.confirm(`Are you sure you want to delete the application ${application.name}? Its tokens stop working at once.`)) return;
    await run(application.id, remove);
  }

  if (applications.length === 0) return <p className="empty">You have not registered any applications yet.</p>;
  return (
    <div className="stack">
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {applications.map((application) => {
        const headingId = `application-${application.id}-heading`;
        return (
          <article key={application.id} className="card stack oauth-card" aria-labelledby={headingId}>
            <h3 id={headingId}>{application.name}</h3>
            {renewed?.id === application.id ? (
              <div className="stack" aria-live="polite">
                <Notice tone="success">Application secret was successfully renewed.</Notice>
                <CopyField label="Secret" value={renewed.secret} />
                <Notice tone="warning">{secretShownOnce}</Notice>
              </div>
            ) : null}
            <dl className="details">
              <dt>Application ID</dt>
              <dd className="monospace break-all">{application.uid}</dd>
              <dt>Secret</dt>
              <dd className="muted">The secret is only available when you create the application or renew the secret.</dd>
              <dt>Callback URLs</dt>
              <dd>
                <ul className="plain-list">
                  {application.redirectUris.map((uri) => (
                    <li key={uri} className="monospace break-all">
                      {uri}
                    </li>
                  ))}
                </ul>
              </dd>
              <dt>Confidential</dt>
              <dd>{application.confidential ? "Yes" : "No"}</dd>
              <dt>Scopes</dt>
              <dd>{application.scopes.join(", ")}</dd>
              <dt>Created</dt>
              <dd>
                <DateText value={application.createdAt} />
              </dd>
            </dl>
            <div className="form-actions">
              <button
                type="button"
                className="button button-secondary"
                disabled={pendingId === application.id}
                onClick={() => onRenew(application)}
              >
                Renew secret
              </button>
              <button
                type="button"
                className="button button-danger"
                disabled={pendingId === application.id}
                onClick={() => onDelete(application)}
              >
                Delete
              </button>
            </div>
          </article>
        );
      })}
    </div>
  );
}
