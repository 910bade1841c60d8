"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
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
  const router = useRouter();
  const [flash, setFlash] = useState<{ tone: "success" | "error"; message: string } | null>(null);
  const [pendingId, setPendingId] = useState<number | null>(null);

  async function onRevoke(application: AuthorizedApplicationItem) {
    if (!window.confirm(`Are you sure you want to revoke access for ${application.name}?`)) return;
    setFlash(null);
    setPendingId(application.id);
    const result = await revoke(application.id);
    setPendingId(null);
    if (result.ok) {
      setFlash({ tone: "success", message: "The application was revoked access." });
      router.refresh();
    } else setFlash({ tone: "error", message: result.message });
  }

  return (
    <>
      {flash ? <Notice tone={flash.tone}>{flash.message}</Notice> : null}
      {applications.length === 0 ? (
        <p className="empty">You have not authorized any applications.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Authorized at</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {applications.map((application) => (
              <tr key={application.id}>
                <td>{application.name}</td>
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
