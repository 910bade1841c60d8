import "server-only";
import { lt } from "drizzle-orm";
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { getDatabaseHandle } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { rateLimits } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { logger } from "@/lib/log";
import { WriteBehindCounter } from "./write-behind-counter";

/**
 * One rate limit: `limit` events per `periodSeconds` for each key. `name` is what the `RateLimit-Name` header says, in
 * GitLab's words; `limit: 0` turns the throttle off.
 */
export interface ThrottleSettings {
  name: string;
  limit: number;
  periodSeconds: number;
}

export type ThrottleName =
  | "failedSignInsPerAddress"
  | "failedSignInsPerAccount"
  | "protectedPathsPerAddress"
  | "mailsPerRecipient"
  | "deviceCodeAttemptsPerUser"
  | "deviceCodeAttemptsPerAddress"
  | "webHookTestsPerHookAndUser"
  | "webHookResendsPerProjectAndUser"
  | "integrationTestsPerProjectAndUser"
  | "oauthTokenPerClient"
  | "oauthDynamicRegistrationPerAddress"
  | "unauthenticatedApiPerAddress"
  | "authenticatedApiPerUser";

/**
 * The throttles every API and token request passes. On PostgreSQL they count through a WriteBehindCounter (no write
 * per request, a small documented overshoot across replicas); the others count failures and rare events, where an
 * exact count matters more than speed, one committed write each.
 */
const highVolumeThrottles = ["oauthTokenPerClient", "unauthenticatedApiPerAddress", "authenticatedApiPerUser"] as const;
type HighVolumeThrottleName = (typeof highVolumeThrottles)[number];

/** The throttles that count attempts, failures, blocks and resets exactly. */
export type ExactThrottleName = Exclude<ThrottleName, HighVolumeThrottleName>;

function isHighVolume(name: ThrottleName): name is HighVolumeThrottleName {
  return (highVolumeThrottles as readonly ThrottleName[]).includes(name);
}

/** How long rows of ended windows stay in `rate_limits` (rate-limiter-flexible's own cleanup keeps them an hour). */
const ENDED_ROWS_KEPT_MS = 60 * 60 * 1000;
const ENDED_ROWS_CLEANUP_INTERVAL_MS = 5 * 60 * 1000;

/** The throttles and their settings (README, Security); the account lock keeps its older setting names. */
export function configuredThrottles(): Record<ThrottleName, ThrottleSettings> {
  return {
    failedSignInsPerAddress: {
      name: "throttle_failed_sign_ins",
      limit: env.THROTTLE_FAILED_SIGN_INS_PER_IP,
      periodSeconds: env.THROTTLE_FAILED_SIGN_INS_PERIOD_SECONDS,
    },
    // Failures are counted for a day; reaching the limit locks the account for SIGN_IN_LOCK_MINUTES (see lockAccount).
    failedSignInsPerAccount: { name: "account_lock", limit: env.SIGN_IN_MAX_ATTEMPTS, periodSeconds: 24 * 60 * 60 },
    protectedPathsPerAddress: {
      name: "throttle_unauthenticated_protected_paths",
      limit: env.THROTTLE_PROTECTED_PATHS_PER_IP,
      periodSeconds: env.THROTTLE_PROTECTED_PATHS_PERIOD_SECONDS,
    },
    mailsPerRecipient: {
      name: "throttle_mails_per_recipient",
      limit: env.THROTTLE_MAILS_PER_RECIPIENT,
      periodSeconds: env.THROTTLE_MAILS_PER_RECIPIENT_PERIOD_SECONDS,
    },
    deviceCodeAttemptsPerUser: {
      name: "throttle_device_code_attempts",
      limit: env.THROTTLE_DEVICE_CODE_ATTEMPTS,
      periodSeconds: env.THROTTLE_DEVICE_CODE_PERIOD_SECONDS,
    },
    deviceCodeAttemptsPerAddress: {
      name: "throttle_device_code_attempts",
      limit: env.THROTTLE_DEVICE_CODE_ATTEMPTS,
      periodSeconds: env.THROTTLE_DEVICE_CODE_PERIOD_SECONDS,
    },
    webHookTestsPerHookAndUser: { name: "web_hook_test", limit: env.THROTTLE_WEB_HOOK_TESTS, periodSeconds: 60 },
    webHookResendsPerProjectAndUser: { name: "web_hook_event_resend", limit: env.THROTTLE_WEB_HOOK_RESENDS, periodSeconds: 60 },
    integrationTestsPerProjectAndUser: { name: "project_testing_integration", limit: env.THROTTLE_INTEGRATION_TESTS, periodSeconds: 60 },
    oauthTokenPerClient: {
      name: "throttle_oauth_token",
      limit: env.THROTTLE_OAUTH_TOKEN_PER_CLIENT,
      periodSeconds: env.THROTTLE_OAUTH_TOKEN_PERIOD_SECONDS,
    },
    oauthDynamicRegistrationPerAddress: {
      name: "oauth_dynamic_registration",
      limit: env.THROTTLE_OAUTH_DYNAMIC_REGISTRATION_PER_IP,
      periodSeconds: env.THROTTLE_OAUTH_DYNAMIC_REGISTRATION_PERIOD_SECONDS,
    },
    unauthenticatedApiPerAddress: {
      name: "throttle_unauthenticated_api",
      limit: env.THROTTLE_UNAUTHENTICATED_API_PER_IP,
      periodSeconds: env.THROTTLE_UNAUTHENTICATED_API_PERIOD_SECONDS,
    },
    authenticatedApiPerUser: {
      name: "throttle_authenticated_api",
      limit: env.THROTTLE_AUTHENTICATED_API_PER_USER,
      periodSeconds: env.THROTTLE_AUTHENTICATED_API_PERIOD_SECONDS,
    },
  };
}

const rateLimitExceededBrand = Symbol.for("gitlab-compatible.rate-limit-exceeded");

/**
 * A request over a rate limit. Each protocol renders it in its own error shape with these headers, GitLab's
 * (`RateLimit-*`, and `Retry-After`, which python-gitlab and gitbeaker wait for before retrying).
 */
export class RateLimitExceeded extends Error {
  readonly [rateLimitExceededBrand] = true;

  /**
   * Whether `error` is one. The counters are shared by the whole process (see getRateLimits) while the framework
   * loads this module once per bundle layer, so the error may come from another copy of this class: `instanceof`
   * would miss it.
   */
  static [Symbol.hasInstance](error: unknown): boolean {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[rateLimitExceededBrand] === true;
  }

  constructor(
    readonly throttle: ThrottleSettings,
    /** Events counted in the current period, the refused one included. */
    readonly observed: number,
    readonly resetAt: Date,
  ) {
    super(`${throttle.name} exceeded`);
  }

  retryAfterSeconds(now: Date = new Date()): number {
    return Math.max(1, Math.ceil((this.resetAt.getTime() - now.getTime()) / 1000));
  }

  headers(now: Date = new Date()): Record<string, string> {
    const resetSeconds = Math.ceil(this.resetAt.getTime() / 1000);
    return {
      "Retry-After": String(this.retryAfterSeconds(now)),
      "RateLimit-Name": this.throttle.name,
      "RateLimit-Limit": String(this.throttle.limit),
      "RateLimit-Observed": String(this.observed),
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": String(resetSeconds),
      "RateLimit-ResetTime": new Date(resetSeconds * 1000).toUTCString(),
    };
  }
}

function exceeded(throttle: ThrottleSettings, result: RateLimiterRes): RateLimitExceeded {
  return new RateLimitExceeded(throttle, result.consumedPoints, new Date(Date.now() + Math.max(result.msBeforeNext, 0)));
}

/**
 * The counters behind every throttle. On PostgreSQL they live in the `rate_limits` table, so all replicas count
 * together: the high-volume throttles through a WriteBehindCounter, the others with one committed upsert each. The
 * embedded database serves one process, which counts in memory. A counter store that fails falls back to counting in
 * memory rather than failing the request.
 */
export class RateLimits {
  private readonly limiters = new Map<ThrottleName, RateLimiterAbstract>();
  private readonly counters = new Map<HighVolumeThrottleName, WriteBehindCounter>();
  private cleanup: NodeJS.Timeout | null = null;

  constructor(
    private readonly handle: Pick<DatabaseHandle, "db" | "driver"> | null,
    private readonly throttles: Record<ThrottleName, ThrottleSettings>,
    private readonly flushIntervalMs?: number,
  ) {}

  private counter(name: HighVolumeThrottleName): WriteBehindCounter | null {
    const throttle = this.throttles[name];
    if (throttle.limit === 0 || this.handle?.driver !== "postgres") return null;
    let counter = this.counters.get(name);
    if (!counter) {
      counter = new WriteBehindCounter(this.handle.db, name, throttle.limit, throttle.periodSeconds, this.flushIntervalMs);
      this.counters.set(name, counter);
      this.cleanEndedRows(this.handle.db);
    }
    return counter;
  }

  /**
   * Deletes rows of windows that ended over an hour ago, every five minutes, as RateLimiterDrizzle does for the
   * exact throttles (which may never be used in a process that only serves the API).
   */
  private cleanEndedRows(db: DatabaseHandle["db"]): void {
    if (this.cleanup) return;
    this.cleanup = setInterval(() => {
      db.delete(rateLimits)
        .where(lt(rateLimits.expire, new Date(Date.now() - ENDED_ROWS_KEPT_MS)))
        .catch((error: unknown) => logger.warn({ err: error }, "ended rate limit windows could not be deleted"));
    }, ENDED_ROWS_CLEANUP_INTERVAL_MS);
    this.cleanup.unref();
  }

  /** Writes what the high-volume throttles counted and not yet wrote (for tests and an orderly shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.counters.values()].map((counter) => counter.flush()));
  }

  private limiter(name: ThrottleName): RateLimiterAbstract | null {
    const throttle = this.throttles[name];
    if (throttle.limit === 0) return null;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      const options = { keyPrefix: name, points: throttle.limit, duration: throttle.periodSeconds };
      const inMemory = new RateLimiterMemory(options);
      limiter =
        this.handle?.driver === "postgres"
          ? new RateLimiterDrizzle({
              ...options,
              storeClient: this.handle.db,
              schema: rateLimits,
              // Once a key is over its limit, later requests in the period are refused without a round trip.
              inMemoryBlockOnConsumed: throttle.limit + 1,
              insuranceLimiter: inMemory,
            })
          : inMemory;
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  /** Counts one request; throws `RateLimitExceeded` when it is over the limit. A null key (nobody to count) passes. */
  async consume(name: ThrottleName, key: string | null): Promise<void> {
    if (key === null) return;
    const counter = isHighVolume(name) ? this.counter(name) : null;
    if (counter) {
      const refusal = await counter.consume(key);
      if (refusal) throw new RateLimitExceeded(this.throttles[name], refusal.observed, refusal.resetAt);
      return;
    }
    const limiter = this.limiter(name);
    if (!limiter) return;
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw exceeded(this.throttles[name], rejection);
      throw rejection;
    }
  }

  /** For throttles that count failures: throws `RateLimitExceeded` while `key` has used up its attempts. */
  async checkAttempts(name: ExactThrottleName, key: string | null): Promise<void> {
    const limiter = this.limiter(name);
    const counted = limiter && key !== null ? await limiter.get(key) : null;
    if (counted && counted.consumedPoints >= this.throttles[name].limit) throw exceeded(this.throttles[name], counted);
  }

  /** Counts a failed attempt; returns whether that used up the attempts of the period. */
  async recordFailure(name: ExactThrottleName, key: string | null): Promise<boolean> {
    const limiter = this.limiter(name);
    if (!limiter || key === null) return false;
    const counted = await limiter.penalty(key, 1);
    return counted.consumedPoints >= this.throttles[name].limit;
  }

  /** Refuses every attempt for `key` for the next `seconds`, whatever was counted. */
  async block(name: ExactThrottleName, key: string, seconds: number): Promise<void> {
    await this.limiter(name)?.block(key, seconds);
  }

  /** Forgets what was counted for `key` (after a successful sign-in, say). */
  async reset(name: ExactThrottleName, key: string): Promise<void> {
    await this.limiter(name)?.delete(key);
  }
}

const globalForRateLimits = globalThis as unknown as { rateLimits?: Promise<RateLimits> };

/** The process's counters, configured from the environment (in memory unless the database is a PostgreSQL server). */
export function getRateLimits(): Promise<RateLimits> {
  globalForRateLimits.rateLimits ??= (env.DATABASE_URL ? getDatabaseHandle() : Promise.resolve(null)).then(
    (handle) => new RateLimits(handle, configuredThrottles()),
  );
  return globalForRateLimits.rateLimits;
}

/**
 * Starts the process's counters afresh. For tests that run one process against several databases, where ids (and so
 * keys made of them) repeat from one database to the next.
 */
export function forgetRateLimits(): void {
  globalForRateLimits.rateLimits = undefined;
}

/**
 * GitLab's protected paths (sign-up, password reset requests, confirmation resends): at most
 * THROTTLE_PROTECTED_PATHS_PER_IP per period from one address; throws `RateLimitExceeded` beyond.
 */
export async function throttleProtectedPath(clientAddress: string | null): Promise<void> {
  await (await getRateLimits()).consume("protectedPathsPerAddress", clientAddress);
}
