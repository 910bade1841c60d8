"use client";

import Link from "next/link";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";

export interface MemberListItem {
  userId: number;
  name: string;
  username: string;
  role: string;
  since: string;
  /** The day the membership ends (`YYYY-MM-DD`, UTC), if it does. */
  expiresAt: string | null;
  /** It has ended: it grants nothing and waits for the scheduled job to remove it. */
  expired: boolean;
}

interface MemberTableProps {
  members: MemberListItem[];
  /** Present when the viewer may remove members (Maintainer or Owner). */
  remove?: (userId: number) => Promise<ActionResult>;
  viewerId: number | null;
}

export function MemberTable({ members, remove, viewerId }: MemberTableProps) {
  const { pendingId, failure, run } = useRowAction();

  async function onRemove(member: MemberListItem) {
    if (!remove || !window.confirm(`Remove @${member.username} from the project?`)) return;
    await run(member.userId, remove);
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <table className="table">
        <TableHead columns={["Name", "Username", "Role", "Member since", "Expires"]} actionsColumn={Boolean(remove)} />
        <tbody>
          {members.map((member) => (
            <tr key={member.userId}>
              <td>
                {member.name}
                {member.userId === viewerId ? <span className="muted"> (you)</span> : null}
              </td>
              <td>
                <Link href={`/${member.username}`}>@{member.username}</Link>
              </td>
              <td>{member.role}</td>
              <td>
                <DateText value={member.since} />
              </td>
              <td>
                {member.expiresAt ?? "—"}
                {member.expired ? (
                  <>
                    {" "}
                    <span className="badge badge-danger">expired</span>
                  </>
                ) : null}
              </td>
              {remove ? (
                <td className="actions">
                  {member.userId !== viewerId ? (
                    <button
                      type="button"
                      className="button button-danger button-small"
                      disabled={pendingId === member.userId}
                      aria-label={`Remove @${member.username}`}
                      onClick={() => onRemove(member)}
                    >
                      Remove
                    </button>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
