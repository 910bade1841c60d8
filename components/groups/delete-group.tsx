"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";

/** Deletes the group, with its subgroups and projects, once confirmed; then the visitor's groups. */
export function DeleteGroup({ fullName, remove }: { fullName: string; remove: () => Promise<ActionResult> }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onConfirm() {
    setConfirming(false);
    setPending(true);
    const result = await remove();
    setPending(false);
    if (!result.ok) {
      setFailure(result.message);
      return;
    }
    router.push("/dashboard/groups");
    router.refresh();
  }

  return (
    <section className="stack card" aria-labelledby="delete-group-heading">
      <h2 id="delete-group-heading" style={{ margin: 0 }}>
        Delete group
      </h2>
      <p>Deleting the group deletes its subgroups and every project in them, with their repositories, issues and alerts. It cannot be undone.</p>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <div className="form-actions">
        <button type="button" className="button button-danger" disabled={pending} onClick={() => setConfirming(true)}>
          Delete group
        </button>
      </div>
      {confirming ? (
        <ConfirmDialog title="Delete group" confirmLabel="Delete group" danger onConfirm={() => void onConfirm()} onCancel={() => setConfirming(false)}>
          <p>
            Delete <strong>{fullName}</strong>, its subgroups and all their projects?
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
