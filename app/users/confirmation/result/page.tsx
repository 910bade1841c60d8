import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { Notice } from "@/components/ui/notice";
import type { ConfirmationOutcome } from "@/lib/users/confirmation";

export const metadata: Metadata = { title: "Email confirmation" };

interface ConfirmationResultPageProps {
  searchParams: Promise<{ outcome?: string | string[] }>;
}

const resendLink = <Link href="/users/confirmation/new">Request a new confirmation link</Link>;
const signInLink = <Link href="/users/sign_in">Sign in</Link>;

/** What each outcome of opening a link says, and where the person can go next. */
const outcomes: Record<ConfirmationOutcome, { tone: "success" | "info" | "error"; text: string; next: ReactNode }> = {
  confirmed: { tone: "success", text: "Your email address has been successfully confirmed.", next: signInLink },
  already_confirmed: { tone: "info", text: "Your email address was already confirmed. Please try signing in.", next: signInLink },
  expired: { tone: "error", text: "This confirmation link has expired: links work for 24 hours.", next: resendLink },
  invalid: { tone: "error", text: "This confirmation link is not valid. It may have been replaced by a newer one.", next: resendLink },
};

function isOutcome(value: unknown): value is ConfirmationOutcome {
  return typeof value === "string" && Object.hasOwn(outcomes, value);
}

/** Where a confirmation link (`/users/confirmation?confirmation_token=…`) leads after confirming. */
export default async function ConfirmationResultPage({ searchParams }: ConfirmationResultPageProps) {
  const { outcome } = await searchParams;
  const { tone, text, next } = outcomes[isOutcome(outcome) ? outcome : "invalid"];
  return (
    <div className="narrow">
      <h1>Email confirmation</h1>
      <Notice tone={tone}>{text}</Notice>
      <p>{next}</p>
    </div>
  );
}
