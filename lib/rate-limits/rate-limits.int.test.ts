import { setTimeout as sleep } from "node:timers/promises";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/drivers";
import { rateLimits } from "@/lib/db/schema";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import { configuredThrottles, RateLimitExceeded, RateLimits, type ThrottleName, type ThrottleSettings } from "./rate-limits";
import { unacknowledgedAllowance } from "./write-behind-counter";

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
    webHookTestsPerHookAndUser: settings("web_hook_test"),
    webHookResendsPerProjectAndUser: settings("web_hook_event_resend"),
    integrationTestsPerProjectAndUser: settings("project_testing_integration"),
    oauthTokenPerClient: settings("throttle_oauth_token"),
    oauthDynamicRegistrationPerAddress: settings("oauth_dynamic_registration"),
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

describe("the throttles' defaults", () => {
  it("are GitLab self-managed's: the guessing and flooding limits on, the API and token request limits off", () => {
    const limits = Object.fromEntries(Object.entries(configuredThrottles()).map(([name, { limit, periodSeconds }]) => [name, [limit, periodSeconds]]));
    expect(limits).toEqual({
      failedSignInsPerAddress: [10, 60],
      failedSignInsPerAccount: [10, 24 * 60 * 60],
      protectedPathsPerAddress: [10, 60],
      mailsPerRecipient: [10, 3600],
      deviceCodeAttemptsPerUser: [10, 60],
      deviceCodeAttemptsPerAddress: [10, 60],
      // GitLab's `web_hook_test` and `web_hook_event_resend`.
      webHookTestsPerHookAndUser: [5, 60],
      webHookResendsPerProjectAndUser: [5, 60],
      integrationTestsPerProjectAndUser: [5, 60],
      // Off; the periods are GitLab's, so setting a limit alone gives GitLab's window.
      oauthTokenPerClient: [0, 60],
      // GitLab's `oauth_dynamic_registration`: on, five registrations an hour per address.
      oauthDynamicRegistrationPerAddress: [5, 3600],
      unauthenticatedApiPerAddress: [0, 3600],
      authenticatedApiPerUser: [0, 3600],
    });
  });

  it("let a key through any number of times when off", async () => {
    const limits = new RateLimits(null, { ...throttles(1, 60), authenticatedApiPerUser: { name: "throttle_authenticated_api", limit: 0, periodSeconds: 3600 } });
    for (let request = 0; request < 50; request++) await limits.consume("authenticatedApiPerUser", "1");
  });
});

describe("rate limits on a PostgreSQL server that cannot be reached", () => {
  it("still count and refuse each key in memory, and never fail a request", async () => {
    const unreachable = {
      insert() {
        throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      },
    } as unknown as Database;
    const limits = new RateLimits({ driver: "postgres", db: unreachable }, throttles(3, 60));
    const key = `198.51.100.${uniqueSuffix()}`;
    for (let request = 0; request < 3; request++) await limits.consume("authenticatedApiPerUser", key);
    const refused = await refusal(limits.consume("authenticatedApiPerUser", key));
    expect(refused.observed).toBe(4);
    expect(refused.headers()).toMatchObject({ "RateLimit-Name": "throttle_authenticated_api", "RateLimit-Observed": "4" });
    expect(refused.retryAfterSeconds()).toBeGreaterThanOrEqual(59);
    // A flush that fails again neither throws nor forgets the count.
    await limits.flush();
    await refusal(limits.consume("authenticatedApiPerUser", key));
    await limits.consume("authenticatedApiPerUser", `${key}-other`);
  });
});

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
    it("counts API requests in memory and writes them to the table in one statement per flush, not one per request", async () => {
      const inserts = { count: 0 };
      const db = new Proxy(handle.db, {
        get(target, property, receiver) {
          if (property === "insert") inserts.count++;
          return Reflect.get(target, property, receiver) as unknown;
        },
      });
      const limits = new RateLimits({ driver: "postgres", db }, throttles(1000, 60), 60_000);
      const key = `user-${uniqueSuffix()}`;
      // The first request of the window asks the table for the window; the next ones are counted here.
      for (let request = 0; request < 10; request++) await limits.consume("authenticatedApiPerUser", key);
      expect(inserts.count).toBe(1);
      await limits.flush();
      expect(inserts.count).toBe(2);
      const [row] = await handle.db.select().from(rateLimits).where(eq(rateLimits.key, `authenticatedApiPerUser:${key}`));
      expect(row?.points).toBe(10);
      expect(row?.expire?.getTime()).toBeGreaterThan(Date.now() + 58_000);
    });

    it("replicas share a limit through the table, overshooting it by at most the documented allowance", async () => {
      const limit = 100;
      const replicas = [new RateLimits(handle, throttles(limit, 60)), new RateLimits(handle, throttles(limit, 60))];
      const key = `192.0.2.${uniqueSuffix()}`;
      const outcomes = await Promise.all(
        Array.from({ length: 300 }, (_, request) =>
          replicas[request % 2]!.consume("unauthenticatedApiPerAddress", key).then(
            () => "passed",
            (error: unknown) => {
              if (error instanceof RateLimitExceeded) return "refused";
              throw error;
            },
          ),
        ),
      );
      const passed = outcomes.filter((outcome) => outcome === "passed").length;
      expect(passed).toBeGreaterThanOrEqual(limit);
      // limit + replicas × unacknowledgedAllowance(limit) − 1 (README, Security).
      expect(passed).toBeLessThanOrEqual(limit + 2 * unacknowledgedAllowance(limit) - 1);
      // Every request is counted, the refused ones too, in the key's one row.
      await Promise.all(replicas.map((replica) => replica.flush()));
      const [row] = await handle.db.select().from(rateLimits).where(eq(rateLimits.key, `unauthenticatedApiPerAddress:${key}`));
      expect(row?.points).toBe(300);
      // Both replicas now refuse. Each counts from the table's total as of its own last acknowledgement, which may be
      // older than the other replica's last flush: over the limit, and at most every request made.
      for (const replica of replicas) {
        const refused = await refusal(replica.consume("unauthenticatedApiPerAddress", key));
        expect(refused.observed).toBeGreaterThan(limit);
        expect(refused.observed).toBeLessThanOrEqual(302);
      }
    });

    it("a replica learns another's count from the table, and a window that ended starts again for both", async () => {
      const replicaA = new RateLimits(handle, throttles(3, 1));
      const replicaB = new RateLimits(handle, throttles(3, 1));
      const key = `user-${uniqueSuffix()}`;
      for (let request = 0; request < 3; request++) await replicaA.consume("authenticatedApiPerUser", key);
      await replicaA.flush();
      const refused = await refusal(replicaB.consume("authenticatedApiPerUser", key));
      expect(refused.observed).toBe(4);
      expect(refused.retryAfterSeconds()).toBe(1);
      await sleep(1100);
      await replicaB.consume("authenticatedApiPerUser", key);
      await replicaB.flush();
      const [row] = await handle.db.select().from(rateLimits).where(eq(rateLimits.key, `authenticatedApiPerUser:${key}`));
      expect(row?.points).toBe(1);
      await replicaA.consume("authenticatedApiPerUser", key);
    });

    it("the exact throttles still write every failure, shared by replicas", async () => {
      const replicaA = new RateLimits(handle, throttles(2, 60));
      const replicaB = new RateLimits(handle, throttles(2, 60));
      const key = `203.0.113.${uniqueSuffix()}`;
      expect(await replicaA.recordFailure("failedSignInsPerAddress", key)).toBe(false);
      expect(await replicaB.recordFailure("failedSignInsPerAddress", key)).toBe(true);
      await refusal(replicaA.checkAttempts("failedSignInsPerAddress", key));
      const [row] = await handle.db.select().from(rateLimits).where(eq(rateLimits.key, `failedSignInsPerAddress:${key}`));
      expect(row?.points).toBe(2);
    });
  } else {
    it("the embedded database's counters stay in memory", async () => {
      const limits = new RateLimits(handle, throttles(3, 60));
      await limits.consume("unauthenticatedApiPerAddress", `192.0.2.${uniqueSuffix()}`);
      expect(await handle.db.select().from(rateLimits)).toEqual([]);
    });
  }
});
