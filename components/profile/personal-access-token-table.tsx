"use client";

import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";

export interface TokenListItem {
  id: number;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  status: "active" | "revoked" | "expired";
}

const statusBadges = {
  active: <span className="badge badge-success">Active</span>,
  revoked: <span className="badge badge-danger">Revoked</span>,
  expired: <span className="badge">Expired</span>,
};

export function PersonalAccessTokenTable({ tokens, revoke }: { tokens: TokenListItem[]; revoke: (id: number) => Promise<ActionResult> }) {
  const { pendingId, failure, run } = useRowAction();

  async function onRevoke(token: TokenListItem) {
    if (!window.confirm(`Revoke the token "${token.name}"? Anything using it stops working at once.`)) return;
    await run(token.id, revoke);
  }

  if (tokens.length === 0) return <p className="empty">You have no personal access tokens yet.</p>;
  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <table className="table">
        <TableHead columns={["Name", "Scopes", "Created", "Last used", "Expires", "Status"]} actionsColumn />
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <td className="long-text">{token.name}</td>
              <td>{token.scopes.join(", ")}</td>
              <td>
                <DateText value={token.createdAt} />
              </td>
              <td>
                <DateText value={token.lastUsedAt} />
              </td>
              <td>
                <DateText value={token.expiresAt} />
              </td>
              <td>{statusBadges[token.status]}</td>
              <td className="actions">
                {token.status === "active" ? (
                  <button
                    type="button"
                    className="button button-danger button-small"
                    disabled={pendingId === token.id}
                    aria-label={`Revoke ${token.name}`}
                    onClick={() => onRevoke(token)}
                  >
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
