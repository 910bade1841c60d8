import { Notice } from "@/components/ui/notice";

/** Recovery codes are only ever shown right after they are made: the server keeps digests, not the codes. */
export function RecoveryCodes({ codes, title }: { codes: string[]; title: string }) {
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
    </section>
  );
}
