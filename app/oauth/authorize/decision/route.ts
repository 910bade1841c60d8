import { verifyCsrfToken } from "@/lib/auth/csrf";
import { sessionContext } from "@/lib/auth/session";
import { actingUser } from "@/lib/context";
import { consentCsrfPurpose, decideAuthorization } from "@/lib/oauth/authorize";
import { oauthErrorPage } from "@/lib/oauth/error-page";
import { OAuthError } from "@/lib/oauth/errors";
import { readOAuthForm, type OAuthParams } from "@/lib/oauth/http";
import { clientAddress } from "@/lib/http/client-address";

const forgedForm = () =>
  oauthErrorPage("invalid_request", "The authorization form expired or did not come from this site. Start again from the application.", 403);

/** The consent form posts here: Authorize or Deny. */
export async function POST(request: Request): Promise<Response> {
  // Who is asking comes first: nobody's form is read before a session is there to check it against.
  const ctx = await sessionContext();
  const user = actingUser(ctx);
  if (!user) return forgedForm();
  let fields: OAuthParams;
  try {
    fields = await readOAuthForm(request);
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorPage(error.error, error.description);
    throw error;
  }
  const { authenticity_token: csrfToken, decision, ...params } = fields;
  if (typeof csrfToken !== "string" || !(await verifyCsrfToken(csrfToken, user.id, consentCsrfPurpose(params), ctx.now))) return forgedForm();
  if (decision !== "approve" && decision !== "deny") return oauthErrorPage("invalid_request", "Choose Authorize or Deny.");
  const result = await decideAuthorization(ctx, params, decision, clientAddress(request.headers));
  switch (result.kind) {
    case "error_page":
      return oauthErrorPage(result.error, result.description);
    case "redirect":
      return new Response(null, { status: 302, headers: { Location: result.location, "Cache-Control": "no-store" } });
    case "sign_in":
      return forgedForm();
  }
}
