import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthorizationError } from "@/components/oauth/authorization-error";
import { ConsentForm } from "@/components/oauth/consent-form";
import { issueCsrfToken } from "@/lib/auth/csrf";
import { sessionContext } from "@/lib/auth/session";
import { consentCsrfPurpose, prepareConsent } from "@/lib/oauth/authorize";
import { currentUser } from "@/lib/users/users";
import { requestClientAddress } from "@/lib/http/client-address";

export const metadata: Metadata = { title: "Authorize application", referrer: "no-referrer" };

interface ConsentPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** Where `GET /oauth/authorize` sends a signed-in person who has not yet approved this application and scopes. */
export default async function ConsentPage({ searchParams }: ConsentPageProps) {
  const query = await searchParams;
  const ctx = await sessionContext();
  const step = await prepareConsent(ctx, query, await requestClientAddress());
  if (step.kind === "error_page") return <AuthorizationError error={step.error} description={step.description} />;
  if (step.kind === "redirect") redirect(step.location);
  if (step.kind === "sign_in") {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(name, item);
    }
    redirect(`/users/sign_in?callbackUrl=${encodeURIComponent(`/oauth/authorize/consent?${search.toString()}`)}`);
  }
  const authenticityToken = await issueCsrfToken(currentUser(ctx).id, consentCsrfPurpose(step.screen.fields), ctx.now);
  return <ConsentForm screen={step.screen} authenticityToken={authenticityToken} />;
}
