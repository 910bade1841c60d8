"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState, useTransition, type FormEvent } from "react";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

interface Assignee {
  username: string;
  name: string;
}

type Assign = (username: string) => Promise<ActionResult<{ assignees: Assignee[] }>>;

/**
 * The alert's assignee, and for whoever may triage (`assign` given) a username to assign instead, or Unassign. A
 * refusal (someone who may not read the project's alerts) stays on the field until the next try.
 */
export function AlertAssignee({ iid, assignees, assign }: { iid: number; assignees: Assignee[]; assign?: Assign }) {
  const router = useRouter();
  const id = useId();
  const inputId = `${id}-username`;
  const errorId = `${id}-error`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [username, setUsername] = useState("");
  const [outcome, setOutcome] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function save(next: string) {
    setFailure(null);
    setOutcome(null);
    startTransition(async () => {
      const result = await assign!(next);
      if (!result.ok) {
        setFailure(result.fieldErrors?.username?.[0] ?? result.message);
        inputRef.current?.focus();
        return;
      }
      const [assigned] = result.data.assignees;
      setOutcome(assigned ? `Alert #${iid} assigned to @${assigned.username}.` : `Alert #${iid} unassigned.`);
      setUsername("");
      router.refresh();
    });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() !== "") save(username);
  }

  return (
    <div className="stack alert-assignee">
      <span>
        {assignees.length === 0 ? (
          <span className="muted">Unassigned</span>
        ) : (
          assignees.map((assignee, index) => (
            <span key={assignee.username}>
              {index > 0 ? ", " : null}
              <Link href={`/${assignee.username}`}>{assignee.name}</Link> <span className="muted">@{assignee.username}</span>
            </span>
          ))
        )}
      </span>
      {assign ? (
        <form className="inline-form" onSubmit={onSubmit} aria-label={`Assignee of alert #${iid}`}>
          <div className="field">
            <label htmlFor={inputId}>Assignee username</label>
            <input
              ref={inputRef}
              id={inputId}
              name="username"
              autoComplete="off"
              maxLength={255}
              value={username}
              onChange={(event) => setUsername(event.target.value)}
              aria-invalid={failure ? true : undefined}
              aria-describedby={failure ? errorId : undefined}
            />
          </div>
          <button type="submit" className="button button-small" disabled={pending || username.trim() === ""}>
            Assign
          </button>
          {assignees.length > 0 ? (
            <button type="button" className="button button-secondary button-small" disabled={pending} onClick={() => save("")}>
              Unassign
            </button>
          ) : null}
        </form>
      ) : null}
      {outcome ? <Notice tone="success">{outcome}</Notice> : null}
      {failure ? (
        <p id={errorId} className="field-error" role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}
