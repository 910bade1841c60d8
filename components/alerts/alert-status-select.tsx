"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { alertStatusLabels, triageStatuses } from "@/lib/alerts/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";

type Status = keyof typeof alertStatusLabels;

/** The status dropdown of an alert: choosing a status changes it at once (Developer+). */
export function AlertStatusSelect({
  iid,
  status,
  update,
}: {
  iid: number;
  status: Status;
  update: (iid: number, status: Status) => Promise<ActionResult<{ status: string }>>;
}) {
  const router = useRouter();
  const [current, setCurrent] = useState<Status>(status);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  // An ignored alert keeps its status among the choices so the select shows the truth.
  const choices: readonly Status[] = triageStatuses.includes(status as (typeof triageStatuses)[number]) ? triageStatuses : [...triageStatuses, status];

  function change(next: Status) {
    const previous = current;
    setCurrent(next);
    setFailure(null);
    startTransition(async () => {
      const result = await update(iid, next);
      if (!result.ok) {
        setCurrent(previous);
        setFailure(result.message);
        return;
      }
      router.refresh();
    });
  }

  return (
    <div className="status-select">
      <select aria-label={`Status of alert #${iid}`} value={current} disabled={pending} onChange={(event) => change(event.target.value as Status)}>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {alertStatusLabels[choice]}
          </option>
        ))}
      </select>
      {failure ? (
        <p className="field-error" role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}
