import Link from "next/link";
import type { ComponentProps } from "react";
import { EmailRequestForm } from "./email-request-form";

/** A page that asks for an address to mail a link to: "Forgot your password?" and "Resend confirmation instructions". */
export function EmailRequestPage({ title, intro, ...form }: { title: string; intro: string } & ComponentProps<typeof EmailRequestForm>) {
  return (
    <div className="narrow">
      <h1>{title}</h1>
      <p className="muted">{intro}</p>
      <div className="card section">
        <EmailRequestForm {...form} />
      </div>
      <p>
        <Link href="/users/sign_in">Sign in</Link>
      </p>
    </div>
  );
}
