import { getSessionUser } from "@/lib/auth/session";
import { getDatabase } from "@/lib/db";
import { beginAuthorization } from "@/lib/oauth/authorize";
import { oauthErrorPage } from "@/lib/oauth/error-page";
import { collectParams } from "@/lib/oauth/http";

export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const params = collectParams(url.searchParams);
  const repeated = Object.entries(params).find(([, value]) => Array.isArray(value));
  if (repeated) return oauthErrorPage("invalid_request", `Parameter ${repeated[0]} was given more than once.`);
  const single = params as Record<string, string>;

  const step = await beginAuthorization(await getDatabase(), await getSessionUser(), single, new Date());
  switch (step.kind) {
    case "error_page":
      return oauthErrorPage(step.error, step.description);
    case "redirect":
      return redirect(step.location);
    case "sign_in":
      return redirect(`/users/sign_in?callbackUrl=${encodeURIComponent(`/oauth/authorize${url.search}`)}`);
    case "consent":
      return redirect(`/oauth/authorize/consent${url.search}`);
  }
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "no-store" } });
}
