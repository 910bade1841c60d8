import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { rateLimits } from "@/lib/db/schema";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import { RateLimitExceeded, RateLimits, type ThrottleName, type ThrottleSettings } from "./rate-limits";

/** Small limits and short periods, so a test can see a period end. */
function throttles(limit: number, periodSeconds: number): Record<ThrottleName, ThrottleSettings> {
  const settings = (name: string): ThrottleSettings => ({ name, limit, periodSeconds });
  return {
    failedSignInsPerAddress: settings("throttle_failed_sign_ins"),
    failedSignInsPerAccount: settings("account_lock"),
    protectedPathsPerAddress: settings("throttle_unauthenticated_protected_paths"),
    mailsPerRecipient: settings("throttle_mails_per_recipient"),
    deviceCodeAttemptsPerUser: settings("throttle_device_code_attempts"),
    deviceCodeAttemptsPerAddress: settings("throttle_device_code_attempts"),
    oauthTokenPerClient: settings("throttle_oauth_token"),
    unauthenticatedApiPerAddress: settings("throttle_unauthenticated_api"),
    authenticatedApiPerUser: settings("throttle_authenticated_api"),
  };
}

async function refusal(promise: Promise<unknown>): Promise<RateLimitExceeded> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RateLimitExceeded) return error;
    throw error;
  }
  throw new Error("expected RateLimitExceeded, but the call passed");
}

describe.each(testDatabases())("rate limits beside $name", ({ name, open }) => {
  const handle = databaseForSuite(open);
  // PostgreSQL keeps the counters in its table, shared by replicas; the embedded database's process counts in memory.
  const store = name === "postgres" ? "the rate_limits table" : "memory";

  it(`counts requests per key in ${store} and refuses the one over the limit with GitLab's headers`, async () => {
    const limits = new RateLimits(handle, throttles(3, 60));
    const key = `198.51.100.${uniqueSuffix()}`;
    for (let request = 0; request < 3; request++) await limits.consume("unauthenticatedApiPerAddress", key);
    const refused = await refusal(limits.consume("unauthenticatedApiPerAddress", key));
    expect(refused.throttle.name).toBe("throttle_unauthenticated_api");
    expect(refused.observed).toBe(4);
    const headers = refused.headers();
    expect(Object.keys(headers)).toEqual([
      "Retry-After",
      "RateLimit-Name",
      "RateLimit-Limit",
      "RateLimit-Observed",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-ResetTime",
    ]);
    expect(headers).toMatchObject({
      "RateLimit-Name": "throttle_unauthenticated_api",
      "RateLimit-Limit": "3",
      "RateLimit-Observed": "4",
      "RateLimit-Remaining": "0",
    });
    expect(Number(headers["Retry-After"])).toBeGreaterThanOrEqual(59);
    expect(Number(headers["Retry-After"])).toBeLessThanOrEqual(60);
    expect(Number(headers["RateLimit-Reset"])).toBe(Math.ceil(refused.resetAt.getTime() / 1000));
    expect(new Date(headers["RateLimit-ResetTime"]!).getTime()).toBe(Number(headers["RateLimit-Reset"]) * 1000);
    // Other keys and other throttles count on their own.
    await limits.consume("unauthenticatedApiPerAddress", `${key}-other`);
    await limits.consume("authenticatedApiPerUser", key);
  });

  it("lets requests through again once the period is over", async () => {
    const limits = new RateLimits(handle, throttles(1, 1));
    const key = `user-${uniqueSuffix()}`;
    await limits.consume("authenticatedApiPerUser", key);
    await refusal(limits.consume("authenticatedApiPerUser", key));
    await sleep(1100);
    await limits.consume("authenticatedApiPerUser", key);
  });

  it("counts failures apart from attempts: a key is refused once its failures reach the limit, until reset", async () => {
    const limits = new RateLimits(handle, throttles(2, 60));
    const key = `203.0.113.${uniqueSuffix()}`;
    await limits.checkAttempts("failedSignInsPerAddress", key);
    expect(await limits.recordFailure("failedSignInsPerAddress", key)).toBe(false);
    await limits.checkAttempts("failedSignInsPerAddress", key);
    expect(await limits.recordFailure("failedSignInsPerAddress", key)).toBe(true);
    const refused = await refusal(limits.checkAttempts("failedSignInsPerAddress", key));
    expect(refused.observed).toBe(2);
    await limits.reset("failedSignInsPerAddress", key);
    await limits.checkAttempts("failedSignInsPerAddress", key);
  });

  it("blocks a key for exactly the time asked, whatever was counted", async () => {
    const limits = new RateLimits(handle, throttles(5, 3600));
    const key = `account-${uniqueSuffix()}`;
    await limits.block("failedSignInsPerAccount", key, 1);
    const refused = await refusal(limits.checkAttempts("failedSignInsPerAccount", key));
    expect(refused.retryAfterSeconds()).toBe(1);
    await sleep(1100);
    await limits.checkAttempts("failedSignInsPerAccount", key);
  });

  it("a limit of 0 turns the throttle off, and a request nobody can be counted for passes", async () => {
    const limits = new RateLimits(handle, throttles(0, 60));
    for (let request = 0; request < 5; request++) await limits.consume("oauthTokenPerClient", "client:x");
    const counted = new RateLimits(handle, throttles(1, 60));
    for (let request = 0; request < 5; request++) await counted.consume("oauthTokenPerClient", null);
    expect(await counted.recordFailure("failedSignInsPerAddress", null)).toBe(false);
  });

  if (name === "postgres") {
    it("replicas share their counts through the database, and keep only the key's counter there", async () => {
      const replicaA = new RateLimits(handle, throttles(3, 60));
      const replicaB = new RateLimits(handle, throttles(3, 60));
      const key = `192.0.2.${uniqueSuffix()}`;
      await replicaA.consume("unauthenticatedApiPerAddress", key);
      await replicaB.consume("unauthenticatedApiPerAddress", key);
      await replicaA.consume("unauthenticatedApiPerAddress", key);
      await refusal(replicaB.consume("unauthenticatedApiPerAddress", key));
      const rows = await handle.db.select().from(rateLimits);
      expect(rows.find((row) => row.key === `unauthenticatedApiPerAddress:${key}`)).toMatchObject({ points: 4 });
    });
  } else {
    it("the embedded database's counters stay in memory", async () => {
      const limits = new RateLimits(handle, throttles(3, 60));
      await limits.consume("unauthenticatedApiPerAddress", `192.0.2.${uniqueSuffix()}`);
      expect(await handle.db.select().from(rateLimits)).toEqual([]);
    });
  }
});
