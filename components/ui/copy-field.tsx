"use client";

import { useId, useState } from "react";

/** A secret shown once: read-only so it cannot be edited by accident, with a button that copies it. */
export function CopyField({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // Without clipboard access (insecure origin, denied permission) the person can still select the text.
      document.getElementById(id)?.focus();
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-field">
        <input id={id} type="text" readOnly value={value} className="monospace" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" className="button button-secondary" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      {hint ? <p className="field-hint">{hint}</p> : null}
    </div>
  );
}
