"use client";

import { useState } from "react";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";

export interface AuthorizedApplicationItem {
  id: number;
  name: string;
  scopes: string[];
  authorizedAt: string;
}

interface AuthorizedApplicationListProps {
  applications: AuthorizedApplicationItem[];
  revoke: (applicationId: number) => Promise<ActionResult>;
}

/** Applications the person gave access to their account, each with Revoke. */
export function AuthorizedApplicationList({ applications, revoke }: AuthorizedApplicationListProps) {
  const { pendingId, failure, run } = useRowAction();
  const [revoked, setRevoked] = useState(false);

  async function onRevoke(application: AuthorizedApplicationItem) {
    if (!window.confirm(`Are you sure you want to revoke access for ${application.name}?`)) return;
    setRevoked(false);
    const result = await run(application.id, revoke);
    setRevoked(result.ok);
  }

  return (
    <>
      {failure ? (
        <Notice tone="error">{failure}</Notice>
      ) : revoked ? (
        <Notice tone="success">The application was revoked access.</Notice>
      ) : null}
      {applications.length === 0 ? (
        <p className="empty">You have not authorized any applications.</p>
      ) : (
        <table className="table">
          <TableHead columns={["Name", "Scopes", "Authorized at"]} actionsColumn />
          <tbody>
            {applications.map((application) => (
              <tr key={application.id}>
                <td className="long-text">{application.name}</td>
                <td>{application.scopes.join(", ")}</td>
                <td>
                  <DateText value={application.authorizedAt} />
                </td>
                <td className="actions">
                  <button
                    type="button"
                    className="button button-danger button-small"
                    disabled={pendingId === application.id}
                    aria-label={`Revoke ${application.name}`}
                    onClick={() => onRevoke(application)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
