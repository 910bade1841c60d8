import "server-only";
import { and, eq, isNotNull } from "drizzle-orm";
import { oauthDeviceAuthorizations, users } from "@/lib/db/schema";
import { authenticateClientIfPresent } from "../client-auth";
import { invalidGrant, missingParameter, oauthError } from "../errors";
import { devicePollingIntervalSeconds } from "../device";
import { createGrant, issueTokens, tokenDigest, tokenResponseBody } from "../tokens";
import type { GrantHandler } from "./types";

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5):
 * - the device code must have been issued to this client;
 * - polling faster than the interval answers `slow_down`; before a decision, `authorization_pending`;
 * - after 300 s, `expired_token`; a denial, `access_denied`;
 * - an approval is exchanged once: the authorization is consumed with the tokens.
 */
export const deviceCodeGrant: GrantHandler = {
  parameters: new Set(["device_code", "client_id", "client_secret"]),
  async handle({ db, request, params, now }) {
    const application = (await authenticateClientIfPresent(db, request, params, { required: true }))!;
    if (!params.device_code) throw missingParameter("device_code");
    const digest = tokenDigest(params.device_code);
    const [authorization] = await db
      .select()
      .from(oauthDeviceAuthorizations)
      .where(eq(oauthDeviceAuthorizations.deviceCodeDigest, digest));
    if (!authorization || authorization.applicationId !== application.id) throw invalidGrant();

    if (authorization.expiresAt <= now) {
      await db.delete(oauthDeviceAuthorizations).where(eq(oauthDeviceAuthorizations.id, authorization.id));
      throw oauthError("expired_token");
    }
    if (authorization.decision === "denied") {
      await db.delete(oauthDeviceAuthorizations).where(eq(oauthDeviceAuthorizations.id, authorization.id));
      throw oauthError("access_denied");
    }
    if (authorization.decision !== "approved") {
      const polledTooSoon =
        authorization.lastPolledAt !== null &&
        now.getTime() - authorization.lastPolledAt.getTime() < devicePollingIntervalSeconds * 1000;
      await db.update(oauthDeviceAuthorizations).set({ lastPolledAt: now }).where(eq(oauthDeviceAuthorizations.id, authorization.id));
      throw oauthError(polledTooSoon ? "slow_down" : "authorization_pending");
    }

    const exchanged = await db.transaction(async (tx) => {
      const [consumed] = await tx
        .delete(oauthDeviceAuthorizations)
        .where(and(eq(oauthDeviceAuthorizations.id, authorization.id), isNotNull(oauthDeviceAuthorizations.decidedById)))
        .returning();
      if (!consumed?.decidedById) return null;
      const [user] = await tx.select().from(users).where(eq(users.id, consumed.decidedById));
      if (!user || user.state !== "active") return null;
      const grant = await createGrant(tx, {
        applicationId: application.id,
        userId: user.id,
        scopes: consumed.scopes,
        authTime: consumed.authTime,
        now,
      });
      return { user, grant, issued: await issueTokens(tx, grant, { scopes: consumed.scopes, now, withRefreshToken: true }) };
    });
    if (!exchanged) throw invalidGrant();
    return tokenResponseBody(exchanged.issued, { db, user: exchanged.user, application, grant: exchanged.grant, now });
  },
};
