import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Almost there" };

/** GitLab's `/users/almost_there`: after signing up, when the address must be confirmed before signing in. */
export default function AlmostTherePage() {
  return (
    <div className="narrow">
      <h1>Almost there…</h1>
      <p>Please check your email to confirm your account, then sign in.</p>
      <p className="muted">
        No confirmation email? <Link href="/users/confirmation/new">Request a new one</Link>.
      </p>
    </div>
  );
}
