"use client";

import { useState } from "react";
import { CopyField } from "@/components/ui/copy-field";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

export interface FeedTokenProps {
  /** When the current token was made (ISO 8601); null when the user has none. */
  createdAt: string | null;
  reset: () => Promise<ActionResult<{ token: string; feedUrl: string }>>;
}

/**
 * The feed token lets feed readers fetch the Atom feeds as the user. Only its digest is stored, so a token is shown
 * once, when reset; resetting again ends the old one (a leaked feed link).
 */
export function FeedToken({ createdAt, reset }: FeedTokenProps) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [issued, setIssued] = useState<{ token: string; feedUrl: string } | null>(null);

  async function onClick() {
    if ((createdAt || issued) && !window.confirm("Reset the feed token? Feed readers using the current one stop getting updates.")) return;
    setPending(true);
    setFailure(null);
    const result = await reset();
    setPending(false);
    if (result.ok) setIssued(result.data);
    else setFailure(result.message);
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {issued ? (
        <Notice tone="success" title="Your new feed token">
          <p>Copy it now: it is not shown again.</p>
          <CopyField label="Feed token" value={issued.token} />
          <CopyField label="Activity feed link" value={issued.feedUrl} hint="Add this link to your feed reader to follow your activity." />
        </Notice>
      ) : (
        <p data-testid="feed-token-status">
          {createdAt ? (
            <>
              You have a feed token, made <DateText value={createdAt} />.
            </>
          ) : (
            "You have no feed token yet."
          )}
        </p>
      )}
      <button type="button" className="button button-secondary" disabled={pending} onClick={onClick}>
        {createdAt || issued ? "Reset feed token" : "Create feed token"}
      </button>
    </>
  );
}
