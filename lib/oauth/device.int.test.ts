import { describe, expect, it } from "vitest";
import { oauthDeviceAuthorizations } from "@/lib/db/schema";
import { NotFoundError } from "@/lib/errors";
import { testDatabases } from "@/lib/testing/databases";
import { createTestUser, userContext } from "@/lib/testing/fixtures";
import { expectOAuthError, formRequest, oauthFixtureForSuite, registerApplication, token } from "@/lib/testing/oauth";
import type { OAuthApplicationRow, UserRow } from "@/lib/db/schema";
import { createDeviceAuthorization, decideDeviceAuthorization, deviceAuthorizer, findPendingDeviceAuthorization } from "./device";
import { getTokenInfo } from "./token-info";
import { deviceCodeGrantType } from "./token";

describe.each(testDatabases())("device authorization grant on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);

  async function start(application: OAuthApplicationRow, secret: string | undefined, now: Date, scope?: string) {
    const params: Record<string, string> = { client_id: application.uid };
    if (secret) params.client_secret = secret;
    if (scope) params.scope = scope;
    return createDeviceAuthorization(fixture.db, formRequest("/oauth/authorize_device", params), params, now);
  }

  const poll = (application: OAuthApplicationRow, secret: string | undefined, deviceCode: string, now: Date) =>
    token(
      fixture.db,
      { grant_type: deviceCodeGrantType, device_code: deviceCode, client_id: application.uid, ...(secret ? { client_secret: secret } : {}) },
      { now },
    );

  const decide = (user: UserRow, userCode: string, decision: "approved" | "denied", now = new Date()) =>
    decideDeviceAuthorization({ ...userContext(fixture.db, user), now }, { userCode, clientAddress: "192.0.2.1" }, decision);

  it("starts with RFC 8628's response", async () => {
    const { application, secret } = await registerApplication(fixture);
    const body = await start(application, secret, new Date(), "api read_user");
    expect(Object.keys(body)).toEqual(["device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"]);
    expect(body).toMatchObject({
      verification_uri: "http://localhost:3000/oauth/device",
      verification_uri_complete: `http://localhost:3000/oauth/device?user_code=${body.user_code}`,
      expires_in: 300,
      interval: 5,
    });
    expect(body.device_code).toMatch(/^[0-9a-f]{64}$/);
    const pending = await findPendingDeviceAuthorization(userContext(fixture.db, fixture.admin), {
      userCode: body.user_code.toLowerCase(),
      clientAddress: "192.0.2.1",
    });
    expect(pending).toMatchObject({ userCode: body.user_code, scopes: ["api", "read_user"], application: { id: application.id } });
  });

  it("refuses a bad client and scopes outside the application's", async () => {
    const { application, secret } = await registerApplication(fixture, { scopes: ["read_user"] });
    await expectOAuthError(start(application, undefined, new Date()), "invalid_client", 401);
    await expectOAuthError(start(application, "gloas-wrong", new Date(), "read_user"), "invalid_client", 401);
    await expectOAuthError(start(application, secret, new Date(), "api"), "invalid_scope");
  });

  it("answers authorization_pending, then slow_down when polled within the interval", async () => {
    const { application, secret } = await registerApplication(fixture);
    const t0 = new Date();
    const { device_code } = await start(application, secret, t0);
    await expectOAuthError(poll(application, secret, device_code, t0), "authorization_pending");
    await expectOAuthError(poll(application, secret, device_code, new Date(t0.getTime() + 4_000)), "slow_down");
    await expectOAuthError(poll(application, secret, device_code, new Date(t0.getTime() + 9_500)), "authorization_pending");
  });

  it("answers expired_token after 300 seconds, and the user code can no longer be approved", async () => {
    const { application, secret } = await registerApplication(fixture);
    const user = await createTestUser(fixture.db);
    const t0 = new Date();
    const { device_code, user_code } = await start(application, secret, t0);
    const late = new Date(t0.getTime() + 301_000);
    await expect(decide(user, user_code, "approved", late)).rejects.toBeInstanceOf(NotFoundError);
    await expectOAuthError(poll(application, secret, device_code, late), "expired_token");
  });

  it("lets an account whose address is not confirmed neither see nor decide a device's request, as the code flow", async () => {
    const { application, secret } = await registerApplication(fixture);
    const unconfirmed = await createTestUser(fixture.db, { confirmed: false });
    const { device_code, user_code } = await start(application, secret, new Date());
    const entry = { userCode: user_code, clientAddress: "192.0.2.1" };
    await expectOAuthError(findPendingDeviceAuthorization(userContext(fixture.db, unconfirmed), entry), "unconfirmed_email");
    await expectOAuthError(decide(unconfirmed, user_code, "approved"), "unconfirmed_email");
    expect(() => deviceAuthorizer(userContext(fixture.db, unconfirmed))).toThrow("Verify the email address in your account profile before you sign in.");
    await expectOAuthError(poll(application, secret, device_code, new Date()), "authorization_pending");
    // Still pending for someone who may decide it.
    const confirmed = await createTestUser(fixture.db);
    expect(deviceAuthorizer(userContext(fixture.db, confirmed))).toBe(confirmed);
    await decide(confirmed, user_code, "approved");
  });

  it("answers access_denied once the person denied", async () => {
    const { application, secret } = await registerApplication(fixture);
    const user = await createTestUser(fixture.db);
    const { device_code, user_code } = await start(application, secret, new Date());
    await decide(user, user_code, "denied");
    await expectOAuthError(poll(application, secret, device_code, new Date()), "access_denied");
  });

  it("issues tokens once after approval, then invalid_grant", async () => {
    const { application, secret } = await registerApplication(fixture);
    const user = await createTestUser(fixture.db);
    const t0 = new Date();
    const { device_code, user_code } = await start(application, secret, t0, "api openid");
    await expectOAuthError(poll(application, secret, device_code, t0), "authorization_pending");
    await decide(user, user_code.replace("-", "").toLowerCase(), "approved");
    // A decided code cannot be decided again.
    await expect(decide(user, user_code, "denied")).rejects.toBeInstanceOf(NotFoundError);

    const body = await poll(application, secret, device_code, new Date(t0.getTime() + 6_000));
    expect(Object.keys(body)).toEqual(["access_token", "token_type", "expires_in", "refresh_token", "scope", "created_at", "id_token"]);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api openid" });
    expect((await getTokenInfo(fixture.db, body.access_token, new Date())).resource_owner_id).toBe(user.id);
    await expectOAuthError(poll(application, secret, device_code, new Date(t0.getTime() + 12_000)), "invalid_grant");
  });

  it("refuses another client's device code and an unknown one", async () => {
    const { application, secret } = await registerApplication(fixture);
    const other = await registerApplication(fixture);
    const user = await createTestUser(fixture.db);
    const { device_code, user_code } = await start(application, secret, new Date());
    await decide(user, user_code, "approved");
    await expectOAuthError(poll(other.application, other.secret, device_code, new Date()), "invalid_grant");
    await expectOAuthError(poll(application, secret, "0".repeat(64), new Date()), "invalid_grant");
    await expectOAuthError(poll(application, "gloas-wrong", device_code, new Date()), "invalid_client", 401);
    // The attempts above did not consume the approval.
    expect((await poll(application, secret, device_code, new Date())).token_type).toBe("Bearer");
  });

  it("stores device codes only as digests", async () => {
    const { application, secret } = await registerApplication(fixture);
    const { device_code } = await start(application, secret, new Date());
    const rows = await fixture.db.select().from(oauthDeviceAuthorizations);
    expect(JSON.stringify(rows)).not.toContain(device_code);
  });
});
