"use client";

import { useRouter } from "next/navigation";
import { createContext, useContext, useId, useRef, useState, useTransition, type ReactNode } from "react";
import { Notice } from "@/components/ui/notice";
import { useHydrated } from "@/components/ui/use-hydrated";
import { alertStatusLabels, triageStatuses } from "@/lib/alerts/form-schemas";
import type { ActionResult } from "@/lib/forms/action-result";

export type AlertStatusValue = keyof typeof alertStatusLabels;
type UpdateStatus = (iid: number, status: AlertStatusValue) => Promise<ActionResult<{ status: string }>>;

const outcomes: Record<AlertStatusValue, string> = {
  triggered: "set to Triggered",
  acknowledged: "acknowledged",
  resolved: "resolved",
  ignored: "ignored",
};

interface StatusChange {
  iid: number;
  previous: AlertStatusValue;
  next: AlertStatusValue;
  undone: boolean;
}

interface Triage {
  update: UpdateStatus;
  changed: (change: Omit<StatusChange, "undone">) => void;
}

const TriageContext = createContext<Triage | null>(null);

/**
 * Status changes of the alerts inside it, and their notice: what changed (and, where the alert left the statuses
 * listed, where it went) with an Undo that restores the previous status. The notice outlives the row it speaks of.
 */
export function AlertTriage({
  update,
  listedStatuses,
  children,
}: {
  update: UpdateStatus;
  /** The statuses the page lists, when it lists only some (the alert list's tab). */
  listedStatuses?: readonly AlertStatusValue[];
  children: ReactNode;
}) {
  const router = useRouter();
  const [change, setChange] = useState<StatusChange | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function undo(current: StatusChange) {
    setFailure(null);
    startTransition(async () => {
      const result = await update(current.iid, current.previous);
      if (!result.ok) {
        setFailure(result.message);
        return;
      }
      setChange({ ...current, undone: true });
      router.refresh();
    });
  }

  let message: string | null = null;
  if (change) {
    message = change.undone
      ? `Alert #${change.iid} is ${alertStatusLabels[change.previous]} again.`
      : `Alert #${change.iid} ${outcomes[change.next]}.`;
    if (!change.undone && listedStatuses && !listedStatuses.includes(change.next)) {
      message += ` It is no longer in this list: see the ${alertStatusLabels[change.next]} tab.`;
    }
  }

  return (
    <TriageContext
      value={{
        update,
        changed: (next) => {
          setFailure(null);
          setChange({ ...next, undone: false });
        },
      }}
    >
      <div className="alert-triage-notice">
        {message && change ? (
          <Notice tone="success">
            <span>{message}</span>{" "}
            {change.undone ? null : (
              <button type="button" className="button button-secondary button-small" disabled={pending} onClick={() => undo(change)}>
                Undo
              </button>
            )}
          </Notice>
        ) : null}
        {failure ? <Notice tone="error">{failure}</Notice> : null}
      </div>
      {children}
    </TriageContext>
  );
}

function useTriage(): Triage {
  const triage = useContext(TriageContext);
  if (!triage) throw new Error("AlertStatusControl must be inside AlertTriage");
  return triage;
}

/**
 * An alert's status: choosing one in the list only prepares the change (arrow keys must never save); "Update status"
 * saves it. Must sit inside `AlertTriage`.
 */
export function AlertStatusControl({ iid, status }: { iid: number; status: AlertStatusValue }) {
  const triage = useTriage();
  const router = useRouter();
  const id = useId();
  const errorId = `${id}-error`;
  const selectRef = useRef<HTMLSelectElement>(null);
  const [choice, setChoice] = useState<AlertStatusValue>(status);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const hydrated = useHydrated();
  // An ignored alert keeps its status among the choices so the select shows the truth.
  const choices: readonly AlertStatusValue[] = (triageStatuses as readonly AlertStatusValue[]).includes(status)
    ? triageStatuses
    : [...triageStatuses, status];

  function save() {
    const next = choice;
    setFailure(null);
    startTransition(async () => {
      const result = await triage.update(iid, next);
      if (!result.ok) {
        setFailure(result.message);
        selectRef.current?.focus();
        return;
      }
      triage.changed({ iid, previous: status, next });
      router.refresh();
    });
  }

  return (
    <div className="status-select">
      <div className="status-select-row">
        <select
          ref={selectRef}
          id={id}
          aria-label={`Status of alert #${iid}`}
          aria-invalid={failure ? true : undefined}
          aria-describedby={failure ? errorId : undefined}
          value={choice}
          disabled={pending || !hydrated}
          onChange={(event) => {
            setChoice(event.target.value as AlertStatusValue);
            setFailure(null);
          }}
        >
          {choices.map((option) => (
            <option key={option} value={option}>
              {alertStatusLabels[option]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-secondary button-small"
          aria-label={`Update status of alert #${iid}`}
          disabled={pending || choice === status}
          onClick={save}
        >
          Update status
        </button>
      </div>
      {failure ? (
        <p className="field-error" id={errorId} role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}
