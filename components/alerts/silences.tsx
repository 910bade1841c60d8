"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Notice } from "@/components/ui/notice";
import type { SilenceForm as SilenceFormValues } from "@/lib/alerts/form-schemas";
import { weekdays, type Weekday } from "@/lib/alerts/silence-rules";
import type { ActionResult } from "@/lib/forms/action-result";

const dayLabels: Record<Weekday, string> = { sun: "Sun", mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat" };

/** A `datetime-local` value (the browser's wall clock) as an instant; empty stays empty. */
function instantOf(local: string): string {
  return local ? new Date(local).toISOString() : "";
}

/** "Create silence" (Maintainer+): matchers one a line, then a one-off window in the browser's time or a weekly one. */
export function SilenceForm({ create }: { create: (form: SilenceFormValues) => Promise<ActionResult> }) {
  const router = useRouter();
  const [kind, setKind] = useState<"once" | "weekly">("once");
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "");
    const values: SilenceFormValues = {
      matchers: text("matchers"),
      kind,
      startsAt: kind === "once" ? instantOf(text("startsAt")) : "",
      endsAt: kind === "once" ? instantOf(text("endsAt")) : "",
      days: kind === "weekly" ? (data.getAll("days").map(String) as Weekday[]) : [],
      startTime: text("startTime"),
      endTime: text("endTime"),
      timeZone: text("timeZone"),
      reason: text("reason"),
    };
    setMessage(null);
    startTransition(async () => {
      const result = await create(values);
      if (!result.ok) {
        const fields = Object.values(result.fieldErrors ?? {}).flat();
        setMessage({ tone: "error", text: fields.length > 0 ? `${result.message} ${fields.join(" ")}` : result.message });
        return;
      }
      form.reset();
      setMessage({ tone: "success", text: "Silence created." });
      router.refresh();
    });
  }

  return (
    <form className="stack silence-form" onSubmit={onSubmit} aria-labelledby="silence-form-heading">
      <h3 id="silence-form-heading">Create silence</h3>
      <div className="field">
        <label htmlFor="silence-matchers">Matchers</label>
        <textarea
          id="silence-matchers"
          name="matchers"
          rows={3}
          required
          aria-describedby="silence-matchers-hint"
          placeholder={'service="db"\nseverity=~"high|critical"'}
        />
        <p id="silence-matchers-hint" className="field-hint">
          One a line, all must match: <code>name=&quot;value&quot;</code>, <code>!=</code>, <code>=~</code> or <code>!~</code> (a regular expression matching the whole
          value). Names: integration, service, environment, severity, title, monitoring_tool, host, payload.&lt;path&gt;.
        </p>
      </div>
      <fieldset className="field">
        <legend>Window</legend>
        <label>
          <input type="radio" name="kind" value="once" checked={kind === "once"} onChange={() => setKind("once")} /> Once
        </label>{" "}
        <label>
          <input type="radio" name="kind" value="weekly" checked={kind === "weekly"} onChange={() => setKind("weekly")} /> Every week
        </label>
      </fieldset>
      {kind === "once" ? (
        <div className="inline-form">
          <div className="field">
            <label htmlFor="silence-starts">Starts (empty: now)</label>
            <input id="silence-starts" type="datetime-local" name="startsAt" />
          </div>
          <div className="field">
            <label htmlFor="silence-ends">Ends</label>
            <input id="silence-ends" type="datetime-local" name="endsAt" required />
          </div>
        </div>
      ) : (
        <>
          <fieldset className="field">
            <legend>Days</legend>
            {weekdays.map((day) => (
              <label key={day} className="silence-day">
                <input type="checkbox" name="days" value={day} /> {dayLabels[day]}
              </label>
            ))}
          </fieldset>
          <div className="inline-form">
            <div className="field">
              <label htmlFor="silence-start-time">From</label>
              <input id="silence-start-time" type="time" name="startTime" required defaultValue="22:00" />
            </div>
            <div className="field">
              <label htmlFor="silence-end-time">To (at or before the start: the next day)</label>
              <input id="silence-end-time" type="time" name="endTime" required defaultValue="06:00" />
            </div>
            <div className="field">
              <label htmlFor="silence-zone">Time zone</label>
              <input id="silence-zone" name="timeZone" required defaultValue={browserZone} />
            </div>
          </div>
        </>
      )}
      <div className="field">
        <label htmlFor="silence-reason">Reason</label>
        <input id="silence-reason" name="reason" required maxLength={1000} />
      </div>
      <div>
        <button type="submit" className="button" disabled={pending}>
          Create silence
        </button>
      </div>
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
    </form>
  );
}

/** "Delete" on a silence's row (Maintainer+), after a confirmation. */
export function DeleteSilenceButton({ silenceId, remove }: { silenceId: number; remove: (silenceId: number) => Promise<ActionResult> }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function onConfirm() {
    setConfirming(false);
    setFailure(null);
    startTransition(async () => {
      const result = await remove(silenceId);
      if (!result.ok) setFailure(result.message);
      else router.refresh();
    });
  }

  return (
    <>
      <button type="button" className="button button-small button-danger" disabled={pending} onClick={() => setConfirming(true)} aria-label={`Delete silence ${silenceId}`}>
        Delete
      </button>
      {confirming ? (
        <ConfirmDialog title={`Delete silence ${silenceId}?`} confirmLabel="Delete silence" danger onConfirm={onConfirm} onCancel={() => setConfirming(false)}>
          Alerts it holds that are still triggered notify within a minute.
        </ConfirmDialog>
      ) : null}
      {failure ? <Notice tone="error">{failure}</Notice> : null}
    </>
  );
}
