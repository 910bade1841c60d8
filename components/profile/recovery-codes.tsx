"use client";

import { useState } from "react";
import { Notice } from "@/components/ui/notice";

/** Recovery codes are only ever shown right after they are made: the server keeps digests, not the codes. */
export function RecoveryCodes({ codes, title }: { codes: string[]; title: string }) {
  const [copied, setCopied] = useState<"copied" | "failed" | null>(null);
  const text = `${codes.join("\n")}\n`;

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
  }

  function download() {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    link.download = `${window.location.hostname}-recovery-codes.txt`;
    link.click();
    URL.revokeObjectURL(link.href);
  }

  return (
    <section aria-labelledby="recovery-codes-heading">
      <Notice tone="success" title={title}>
        <p>
          Store these recovery codes somewhere safe. Each one signs you in once if you lose access to your authenticator
          app. <strong>They will not be shown again.</strong>
        </p>
      </Notice>
      <h2 id="recovery-codes-heading">Recovery codes</h2>
      <ol className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={copy}>
          Copy codes
        </button>
        <button type="button" className="button button-secondary" onClick={download}>
          Download codes
        </button>
      </div>
      <p role="status" className="field-hint">
        {copied === "copied" ? "The recovery codes were copied to the clipboard." : copied === "failed" ? "The codes could not be copied: select them and copy them yourself." : null}
      </p>
    </section>
  );
}
