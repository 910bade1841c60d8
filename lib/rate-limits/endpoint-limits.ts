import "server-only";
import { actingUser, type Ctx } from "@/lib/context";
import { TooManyRequestsError } from "@/lib/errors";
import { getRateLimits, RateLimitExceeded, type ThrottleName } from "./rate-limits";

/**
 * GitLab's application rate limits on single endpoints (its `check_rate_limit!`), each counted per scope and user:
 * requests sent by hand to an address someone typed (a hook's test or resend, an integration's test), so nobody turns
 * the service into a pump aimed at someone else's server.
 */
export type EndpointLimit = Extract<ThrottleName, "webHookTestsPerHookAndUser" | "webHookResendsPerProjectAndUser" | "integrationTestsPerProjectAndUser">;

/** Counts one request of the acting user against `limit` for `scope` (`hook:12`, `project:3`); past it, 429 as GitLab. */
export async function checkEndpointLimit(ctx: Ctx, limit: EndpointLimit, scope: string): Promise<void> {
  const user = actingUser(ctx);
  try {
    await (await getRateLimits()).consume(limit, user ? `${scope}:user:${user.id}` : null);
  } catch (error) {
    if (error instanceof RateLimitExceeded) throw new TooManyRequestsError(error.retryAfterSeconds(ctx.now));
    throw error;
  }
}
