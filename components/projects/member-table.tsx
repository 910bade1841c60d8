"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

export interface MemberListItem {
  userId: number;
  name: string;
  username: string;
  role: string;
  since: string;
}

interface MemberTableProps {
  members: MemberListItem[];
  /** Present when the viewer may remove members (Maintainer or Owner). */
  remove?: (userId: number) => Promise<ActionResult>;
  viewerId: number | null;
}

export function MemberTable({ members, remove, viewerId }: MemberTableProps) {
  const router = useRouter();
  const [failure, setFailure] = useState<string | null>(null);
  const [pendingId, setPendingId] = useState<number | null>(null);

  async function onRemove(member: MemberListItem) {
    if (!remove || !window.confirm(`Remove @${member.username} from the project?`)) return;
    setFailure(null);
    setPendingId(member.userId);
    const result = await remove(member.userId);
    setPendingId(null);
    if (result.ok) router.refresh();
    else setFailure(result.message);
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Username</th>
            <th scope="col">Role</th>
            <th scope="col">Member since</th>
            {remove ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
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
