"use client";

import Link from "next/link";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TableHead } from "@/components/ui/table-head";
import { Notice } from "@/components/ui/notice";
import { useRowAction } from "@/components/ui/use-row-action";
import type { ActionResult } from "@/lib/forms/action-result";
import { hookTestOptions } from "@/lib/webhooks/form-schemas";

export interface HookListItem {
  id: number;
  url: string;
  name: string | null;
  alert_status: "executable" | "temporarily_disabled" | "disabled";
  disabled_until: string | null;
  events: string[];
}

/** The state GitLab shows beside a hook, and why. */
export function HookStatus({ hook }: { hook: Pick<HookListItem, "alert_status" | "disabled_until"> }) {
  if (hook.alert_status === "disabled") {
    return (
      <span className="badge badge-danger" title="Disabled after 40 failed requests in a row; a successful test enables it again">
        Disabled
      </span>
    );
  }
  if (hook.alert_status === "temporarily_disabled") {
    return (
      <span className="badge badge-warning" title={`Failed requests in a row: retried after ${hook.disabled_until ?? "a while"}`}>
        Temporarily disabled
      </span>
    );
  }
  return <span className="badge badge-success">Enabled</span>;
}

/** The project's webhooks, each with Test (a trigger's sample, sent now), Edit and Delete. */
export function HookList({
  hooks,
  hooksPath,
  actions,
}: {
  hooks: HookListItem[];
  /** `/namespace/project/-/hooks`, under which each hook's edit page is. */
  hooksPath: string;
  actions: { test: (hookId: number, trigger: string) => Promise<ActionResult<string>>; remove: (hookId: number) => Promise<ActionResult> };
}) {
  const { pendingId, failure, run } = useRowAction();
  const [deleting, setDeleting] = useState<HookListItem | null>(null);
  const [tested, setTested] = useState<string | null>(null);
  const [triggers, setTriggers] = useState<Record<number, string>>({});

  async function test(hook: HookListItem) {
    setTested(null);
    const result = await run(hook.id, (id) => actions.test(id, triggers[hook.id] ?? "push_events"));
    if (result.ok) setTested(result.data);
  }

  if (hooks.length === 0) return <p className="empty">No webhooks enabled. Select trigger events above.</p>;
  return (
    <div className="stack">
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {tested ? <Notice tone="success">{tested}</Notice> : null}
      <table className="table">
        <caption className="visually-hidden">Project hooks</caption>
        <TableHead columns={["Webhook", "Status", "Events"]} actionsColumn />
        <tbody>
          {hooks.map((hook) => (
            <tr key={hook.id}>
              <td className="long-text">
                <strong>{hook.name ?? hook.url}</strong>
                {hook.name ? <div className="muted">{hook.url}</div> : null}
              </td>
              <td>
                <HookStatus hook={hook} />
              </td>
              <td>{hook.events.join(", ") || "No events"}</td>
              <td className="actions">
                <label className="visually-hidden" htmlFor={`hook-${hook.id}-trigger`}>
                  Event to test {hook.name ?? hook.url} with
                </label>
                <select
                  id={`hook-${hook.id}-trigger`}
                  value={triggers[hook.id] ?? "push_events"}
                  onChange={(event) => setTriggers({ ...triggers, [hook.id]: event.target.value })}
                >
                  {hookTestOptions.map((option) => (
                    <option key={option.value} value={option.value}>
                      {option.label}
                    </option>
                  ))}
                </select>{" "}
                <button type="button" className="button button-secondary button-small" disabled={pendingId === hook.id} onClick={() => test(hook)}>
                  Test
                </button>{" "}
                <Link className="button button-secondary button-small" href={`${hooksPath}/${hook.id}/edit`} aria-label={`Edit webhook ${hook.name ?? hook.url}`}>
                  Edit
                </Link>{" "}
                <button
                  type="button"
                  className="button button-danger button-small"
                  aria-label={`Delete webhook ${hook.name ?? hook.url}`}
                  disabled={pendingId === hook.id}
                  onClick={() => setDeleting(hook)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting ? (
        <ConfirmDialog
          title="Delete webhook"
          confirmLabel="Delete webhook"
          danger
          onConfirm={() => {
            const hook = deleting;
            setDeleting(null);
            void run(hook.id, actions.remove);
          }}
          onCancel={() => setDeleting(null)}
        >
          <p>Are you sure you want to delete this project hook? Its recent events go with it.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

/** Resend of one logged request (the hook log page). */
export function ResendButton({ resend }: { resend: () => Promise<ActionResult<string>> }) {
  const { pendingId, failure, run } = useRowAction();
  const [sent, setSent] = useState<string | null>(null);
  return (
    <div className="stack">
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {sent ? <Notice tone="success">{sent}</Notice> : null}
      <div className="form-actions">
        <button
          type="button"
          className="button"
          disabled={pendingId !== null}
          onClick={async () => {
            setSent(null);
            const result = await run(0, () => resend());
            if (result.ok) setSent(result.data);
          }}
        >
          Resend Request
        </button>
      </div>
    </div>
  );
}
