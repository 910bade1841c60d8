import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthorizationError } from "@/components/oauth/authorization-error";
import { ConsentForm } from "@/components/oauth/consent-form";
import { issueCsrfToken } from "@/lib/auth/csrf";
import { requireSessionContext } from "@/lib/auth/session";
import { consentCsrfPurpose, prepareConsent } from "@/lib/oauth/authorize";
import { currentUser } from "@/lib/users/users";

export const metadata: Metadata = { title: "Authorize application", referrer: "no-referrer" };

interface ConsentPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** Where `GET /oauth/authorize` sends a signed-in person who has not yet approved this application and scopes. */
export default async function ConsentPage({ searchParams }: ConsentPageProps) {
  const query = await searchParams;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(name, item);
  }
  const ctx = await requireSessionContext(`/oauth/authorize/consent?${search.toString()}`);

  const repeated = Object.entries(query).find(([, value]) => Array.isArray(value));
  if (repeated) return <AuthorizationError error="invalid_request" description={`Parameter ${repeated[0]} was given more than once.`} />;

  const step = await prepareConsent(ctx, query as Record<string, string | undefined>);
  if (step.kind === "error_page") return <AuthorizationError error={step.error} description={step.description} />;
  if (step.kind === "redirect") redirect(step.location);

  const authenticityToken = await issueCsrfToken(currentUser(ctx).id, consentCsrfPurpose(query as Record<string, string | undefined>), ctx.now);
  return <ConsentForm screen={step.screen} authenticityToken={authenticityToken} />;
}
