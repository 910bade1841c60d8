import "server-only";
import NextAuth from "next-auth";
import { env } from "@/lib/env";
import { clientAddress } from "@/lib/http/client-address";
import { getRateLimits, RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { getAuthOptions } from "./options";

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth's endpoints (`/api/auth/*`). A sign-in from an address over the failed sign-in throttle is answered 429
 * with `Retry-After` before next-auth runs, in the shape next-auth's client reads (`url` carrying `error`), so the form
 * can say why. next-auth's options hold a secret that may be read from the database: resolved per request (cached).
 */
export async function handleNextAuthRequest(request: Request, context: NextAuthContext): Promise<Response> {
  if (request.method === "POST" && (await context.params).nextauth.join("/") === "callback/credentials") {
    try {
      await (await getRateLimits()).checkAttempts("failedSignInsPerAddress", clientAddress(request.headers));
    } catch (error) {
      if (!(error instanceof RateLimitExceeded)) throw error;
      return Response.json({ url: `${env.EXTERNAL_URL}/users/sign_in?error=throttled` }, { status: 429, headers: error.headers() });
    }
  }
  return NextAuth(request as never, context as never, await getAuthOptions());
}
