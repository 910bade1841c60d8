import "server-only";
import { randomInt } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import type { Database } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { oauthApplications, oauthDeviceAuthorizations, type OAuthApplicationRow, type UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { NotFoundError, UnauthorizedError } from "@/lib/errors";
import { isKnownScope } from "@/lib/api/scopes";
import { getRateLimits, type RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { authenticateClientIfPresent } from "./client-auth";
import { oauthError } from "./errors";
import { parseScopeString } from "./scopes";
import { generateOpaqueToken, tokenDigest } from "./tokens";

export const deviceCodeLifetimeSeconds = 300;
export const devicePollingIntervalSeconds = 5;

// RFC 8628 §6.1: consonants only, so codes spell no words and survive being read aloud.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ";

function generateUserCode(): string {
  return Array.from({ length: 8 }, () => userCodeAlphabet[randomInt(userCodeAlphabet.length)]).join("");
}

/** How people see and type a user code: `WDJB-MJHT`. Input is accepted in any case, with or without the dash. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z]/g, "");
}

/** `POST /oauth/authorize_device` (RFC 8628 §3.1–3.2). */
export async function createDeviceAuthorization(
  db: Database,
  request: Request,
  params: Record<string, string | undefined>,
  now: Date,
) {
  const application = (await authenticateClientIfPresent(db, request, params, { required: true }))!;
  const scopes = params.scope === undefined ? application.scopes.filter((scope) => scope === "api") : parseScopeString(params.scope);
  if (!scopes || scopes.length === 0 || !scopes.every((scope) => isKnownScope(scope) && application.scopes.includes(scope))) {
    throw oauthError("invalid_scope");
  }
  const deviceCode = generateOpaqueToken();
  for (let attempt = 0; ; attempt++) {
    const userCode = generateUserCode();
    try {
      await db.insert(oauthDeviceAuthorizations).values({
        deviceCodeDigest: tokenDigest(deviceCode),
        userCode,
        applicationId: application.id,
        scopes,
        expiresAt: new Date(now.getTime() + deviceCodeLifetimeSeconds * 1000),
        createdAt: now,
      });
      const verificationUri = `${env.EXTERNAL_URL}/oauth/device`;
      return {
        device_code: deviceCode,
        user_code: formatUserCode(userCode),
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${formatUserCode(userCode)}`,
        expires_in: deviceCodeLifetimeSeconds,
        interval: devicePollingIntervalSeconds,
      };
    } catch (error) {
      // 20^8 codes make a collision with a live one rare; retry a few times rather than fail the device.
      if (violatedUniqueConstraint(error) === undefined || attempt >= 4) throw error;
    }
  }
}

export interface PendingDeviceAuthorization {
  userCode: string;
  application: Pick<OAuthApplicationRow, "id" | "name">;
  scopes: string[];
}

/**
 * The signed-in person who would authorize a device. As the code flow (GitLab's `verify_confirmed_email!`), an account
 * whose address is unproven authorizes nothing: `unconfirmed_email`, whose description the device page shows.
 */
export function deviceAuthorizer(ctx: Ctx): UserRow {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (!user.confirmedAt) throw oauthError("unconfirmed_email");
  return user;
}

/**
 * Runs a lookup by user code under the throttle that keeps codes from being guessed (RFC 8628 §5.1): a user, and an
 * address, that typed THROTTLE_DEVICE_CODE_ATTEMPTS wrong codes in a period get `RateLimitExceeded` until it ends.
 */
async function throttledCodeLookup<T>(ctx: Ctx, clientAddress: string | null, lookup: (user: UserRow) => Promise<T>): Promise<T> {
  const user = deviceAuthorizer(ctx);
  const limits = await getRateLimits();
  await limits.checkAttempts("deviceCodeAttemptsPerUser", String(user.id));
  await limits.checkAttempts("deviceCodeAttemptsPerAddress", clientAddress);
  try {
    return await lookup(user);
  } catch (error) {
    if (error instanceof NotFoundError) {
      await limits.recordFailure("deviceCodeAttemptsPerUser", String(user.id));
      await limits.recordFailure("deviceCodeAttemptsPerAddress", clientAddress);
    }
    throw error;
  }
}

/** What the device page says to someone the throttle stopped. */
export function tooManyCodesMessage(error: RateLimitExceeded): string {
  return `Too many wrong codes. Try again in ${error.retryAfterSeconds()} seconds.`;
}

/** Who types a user code, and from where. */
export interface UserCodeEntry {
  userCode: string;
  clientAddress: string | null;
}

/** The undecided, unexpired authorization a user code names, for the approval page. */
export async function findPendingDeviceAuthorization(ctx: Ctx, entry: UserCodeEntry): Promise<PendingDeviceAuthorization> {
  return throttledCodeLookup(ctx, entry.clientAddress, () => findPending(ctx, normalizeUserCode(entry.userCode)));
}

async function findPending(ctx: Ctx, userCode: string): Promise<PendingDeviceAuthorization> {
  const [row] = await ctx.db
    .select({ authorization: oauthDeviceAuthorizations, application: oauthApplications })
    .from(oauthDeviceAuthorizations)
    .innerJoin(oauthApplications, eq(oauthApplications.id, oauthDeviceAuthorizations.applicationId))
    .where(
      and(
        eq(oauthDeviceAuthorizations.userCode, userCode),
        isNull(oauthDeviceAuthorizations.decision),
        gt(oauthDeviceAuthorizations.expiresAt, ctx.now),
      ),
    );
  if (!row) throw new NotFoundError("Device code");
  return {
    userCode: formatUserCode(userCode),
    application: { id: row.application.id, name: row.application.name },
    scopes: row.authorization.scopes,
  };
}

/** The signed-in person approves or denies the device; the device learns it at its next poll. */
export async function decideDeviceAuthorization(ctx: Ctx, entry: UserCodeEntry, decision: "approved" | "denied"): Promise<void> {
  await throttledCodeLookup(ctx, entry.clientAddress, (user) => decide(ctx, user, normalizeUserCode(entry.userCode), decision));
}

async function decide(ctx: Ctx, user: UserRow, userCode: string, decision: "approved" | "denied"): Promise<void> {
  const decided = await ctx.db
    .update(oauthDeviceAuthorizations)
    .set({ decision, decidedById: user.id, authTime: user.lastSignInAt ?? ctx.now })
    .where(
      and(
        eq(oauthDeviceAuthorizations.userCode, userCode),
        isNull(oauthDeviceAuthorizations.decision),
        gt(oauthDeviceAuthorizations.expiresAt, ctx.now),
      ),
    )
    .returning({ id: oauthDeviceAuthorizations.id });
  if (decided.length === 0) throw new NotFoundError("Device code");
}
