"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Notice } from "@/components/ui/notice";
import { alertSnoozeOptions } from "@/lib/alerts/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";

type SnoozeChoice = number | "until_resolved";

/** The alert's snooze: what holds its notifications, and for Developers a choice to snooze or end it. */
export function AlertSnooze({
  snoozedUntil,
  untilResolved,
  snooze,
}: {
  /** ISO time, when a timed snooze is running. */
  snoozedUntil: string | null;
  untilResolved: boolean;
  snooze?: (choice: SnoozeChoice) => Promise<ActionResult<{ snoozedUntil: string | null; untilResolved: boolean }>>;
}) {
  const router = useRouter();
  const [choice, setChoice] = useState<string>("60");
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const snoozed = untilResolved || snoozedUntil !== null;

  function run(next: SnoozeChoice) {
    if (!snooze) return;
    setFailure(null);
    startTransition(async () => {
      const result = await snooze(next);
      if (!result.ok) setFailure(result.message);
      else router.refresh();
    });
  }

  return (
    <div className="stack alert-snooze">
      <span>{untilResolved ? "Snoozed until resolved" : snoozedUntil ? `Snoozed until ${snoozedUntil.replace("T", " ").replace(/\.\d{3}Z$/, " UTC")}` : "Not snoozed"}</span>
      {snooze ? (
        <div className="inline-form">
          <label htmlFor="alert-snooze-choice" className="visually-hidden">
            Snooze for
          </label>
          <select id="alert-snooze-choice" value={choice} onChange={(event) => setChoice(event.target.value)} disabled={pending}>
            {alertSnoozeOptions.map((option) => (
              <option key={option.value} value={String(option.value)}>
                {option.label}
              </option>
            ))}
          </select>
          <button type="button" className="button button-small" disabled={pending} onClick={() => run(choice === "until_resolved" ? "until_resolved" : Number(choice))}>
            Snooze
          </button>
          {snoozed ? (
            <button type="button" className="button button-small button-secondary" disabled={pending} onClick={() => run(0)}>
              End snooze
            </button>
          ) : null}
        </div>
      ) : null}
      {failure ? <Notice tone="error">{failure}</Notice> : null}
    </div>
  );
}
