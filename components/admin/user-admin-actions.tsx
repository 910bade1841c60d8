"use client";

import { Notice } from "@/components/ui/notice";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";

interface UserAdminActionsProps {
  userId: number;
  username: string;
  /** Each is present only when it applies to the account as it is now. */
  confirm?: (userId: number) => Promise<ActionResult>;
  block?: (userId: number) => Promise<ActionResult>;
  unblock?: (userId: number) => Promise<ActionResult>;
}

/** The admin area's actions on one account (GitLab's Confirm user, Block, Unblock); the page is refreshed after each. */
export function UserAdminActions({ userId, username, confirm, block, unblock }: UserAdminActionsProps) {
  const { pendingId, failure, run } = useRowAction();
  const pending = pendingId === userId;
  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <div className="form-actions">
        {confirm ? (
          <button type="button" className="button" disabled={pending} onClick={() => run(userId, confirm)}>
            Confirm user
          </button>
        ) : null}
        {block ? (
          <button
            type="button"
            className="button button-danger"
            disabled={pending}
            onClick={() => {
              if (window.confirm(`Block @${username}? They will be signed out everywhere and cannot sign in or use their tokens.`)) void run(userId, block);
            }}
          >
            Block
          </button>
        ) : null}
        {unblock ? (
          <button type="button" className="button" disabled={pending} onClick={() => run(userId, unblock)}>
            Unblock
          </button>
        ) : null}
      </div>
    </>
  );
}
