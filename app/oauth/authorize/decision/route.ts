import { verifyCsrfToken } from "@/lib/auth/csrf";
import { getSessionUser } from "@/lib/auth/session";
import { getDatabase } from "@/lib/db";
import { consentCsrfPurpose, decideAuthorization } from "@/lib/oauth/authorize";
import { oauthErrorPage } from "@/lib/oauth/error-page";
import { collectParams } from "@/lib/oauth/http";

/** The consent form posts here: Authorize or Deny. */
export async function POST(request: Request): Promise<Response> {
  const user = await getSessionUser();
  const fields = collectParams(new URLSearchParams(await request.text()));
  if (Object.values(fields).some(Array.isArray)) return oauthErrorPage("invalid_request", "A form field was given more than once.");
  const { authenticity_token: csrfToken, decision, ...params } = fields as Record<string, string>;
  const now = new Date();
  if (!user || !(await verifyCsrfToken(csrfToken, user.id, consentCsrfPurpose(params), now))) {
    return oauthErrorPage("invalid_request", "The authorization form expired or did not come from this site. Start again from the application.", 403);
  }
  if (decision !== "approve" && decision !== "deny") return oauthErrorPage("invalid_request", "Choose Authorize or Deny.");
  const result = await decideAuthorization(await getDatabase(), user, params, decision, now);
  if (result.kind === "error_page") return oauthErrorPage(result.error, result.description);
  if (result.kind === "redirect") return new Response(null, { status: 302, headers: { Location: result.location, "Cache-Control": "no-store" } });
  return oauthErrorPage("invalid_request", "The authorization request is not valid.");
}
