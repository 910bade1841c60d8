"use client";

import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";

export interface AdminApplicationListItem {
  id: number;
  name: string;
  uid: string;
  registration: "manual" | "dynamic" | "metadata_document";
  trusted: boolean;
  confidential: boolean;
  scopes: string[];
  createdAt: Date;
}

const registrationLabels: Record<AdminApplicationListItem["registration"], string> = {
  manual: "Registered by a person",
  dynamic: "Dynamic registration",
  metadata_document: "Client metadata document",
};

interface AdminApplicationTableProps {
  applications: AdminApplicationListItem[];
  trust: (id: number) => Promise<ActionResult>;
  distrust: (id: number) => Promise<ActionResult>;
  remove: (id: number) => Promise<ActionResult>;
}

/** The admin area's list of applications, with Trust (skips the consent screen) and Delete for each. */
export function AdminApplicationTable({ applications, trust, distrust, remove }: AdminApplicationTableProps) {
  const { pendingId, failure, run } = useRowAction();
  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <table className="table">
        <TableHead columns={["Name", "Client ID", "Registration", "Scopes", "Created"]} actionsColumn />
        <tbody>
          {applications.map((application) => {
            const pending = pendingId === application.id;
            const unverified = application.registration !== "manual" && !application.trusted;
            return (
              <tr key={application.id}>
                <td className="long-text">
                  {application.name}
                  <span className="badges">
                    {unverified ? <span className="badge badge-warning">Unverified</span> : null}
                    {application.trusted ? <span className="badge badge-success">Trusted</span> : null}
                  </span>
                </td>
                <td>
                  <span className="monospace break-all">{application.uid}</span>
                </td>
                <td>{registrationLabels[application.registration]}</td>
                <td>{application.scopes.join(" ")}</td>
                <td>
                  <DateText value={application.createdAt} />
                </td>
                <td>
                  <div className="form-actions">
                    {application.trusted ? (
                      <button type="button" className="button button-secondary" disabled={pending} onClick={() => run(application.id, distrust)}>
                        Stop trusting <span className="visually-hidden">{application.name}</span>
                      </button>
                    ) : (
                      <button type="button" className="button" disabled={pending} onClick={() => run(application.id, trust)}>
                        Trust <span className="visually-hidden">{application.name}</span>
                      </button>
                    )}
                    <button
                      type="button"
                      className="button button-danger"
                      disabled={pending}
                      onClick={() => {
                        if (window.confirm(`Delete ${application.name}? Its tokens stop working at once.`)) void run(application.id, remove);
                      }}
                    >
                      Delete <span className="visually-hidden">{application.name}</span>
                    </button>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
