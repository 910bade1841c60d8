import { sessionContext } from "@/lib/auth/session";
import { beginAuthorization } from "@/lib/oauth/authorize";
import { oauthErrorPage } from "@/lib/oauth/error-page";
import { collectParams } from "@/lib/oauth/http";
import { clientAddress } from "@/lib/http/client-address";

export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const step = await beginAuthorization(await sessionContext(), collectParams(url.searchParams), clientAddress(request.headers));
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
