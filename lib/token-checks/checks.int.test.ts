import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { authenticateToken } from "@/lib/api/authenticate";
import type { Actor } from "@/lib/context";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { oauthAccessTokens, personalAccessTokens, users, type UserRow } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors";
import { deleteApplication, renewApplicationSecret, revokeApplicationAuthorization } from "@/lib/oauth/applications";
import { OAuthError } from "@/lib/oauth/errors";
import { getTokenInfo, introspectToken, revokeToken } from "@/lib/oauth/token-info";
import { testDatabases } from "@/lib/testing/databases";
import { createTestUser, userContext } from "@/lib/testing/fixtures";
import { dropConnections, eventually, listeningConnections, settle, twoProcesses } from "@/lib/testing/notifications";
import { authorizeCode, formRequest, oauthFixture, oauthFixtureForSuite, registerApplication, testRedirectUri, token, type OAuthFixture } from "@/lib/testing/oauth";
import { blockUser, unblockUser, updateUserAsAdmin } from "@/lib/users/admin";
import { insertPersonalAccessToken, revokePersonalAccessToken, rotatePersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { forgetTokenChecks, startTokenCheckCache } from "./checks";

/** What `/api/v4` answers for each refusal, written out so a change to the wire text fails here. */
const revokedAnswer = { status: 401, body: { error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." } };
const blockedAnswer = { status: 403, body: { message: "403 Forbidden - Your account has been blocked." } };
const unknownAnswer = { status: 401, body: { message: "401 Unauthorized" } };

/** What `/api/v4` makes of a token: the actor, or the API error it answers with. */
async function apiAnswer(db: Database, value: string): Promise<Actor | { status: number; body: unknown }> {
  try {
    return await authenticateToken(db, { value, bearer: true }, new Date());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: error.body() };
  }
}

async function expectRefused(db: Database, value: string, refusal: { status: number; body: unknown }) {
  expect(await apiAnswer(db, value)).toEqual(refusal);
}

async function expectActor(db: Database, value: string, user: Pick<UserRow, "id">): Promise<Actor & { kind: "user" }> {
  const answer = await apiAnswer(db, value);
  expect(answer).toMatchObject({ kind: "user", user: { id: user.id } });
  return answer as Actor & { kind: "user" };
}

/** Runs `change` with the notification triggers of the token tables off: what the cache hears of it is up to the test. */
async function unannounced(db: Database, change: () => Promise<unknown>): Promise<void> {
  const tables = ["oauth_access_tokens", "personal_access_tokens", "users"];
  for (const table of tables) await db.execute(sql.raw(`alter table "${table}" disable trigger user`));
  try {
    await change();
  } finally {
    for (const table of tables) await db.execute(sql.raw(`alter table "${table}" enable trigger user`));
  }
}

async function issueOAuthTokens(fixture: OAuthFixture, user?: UserRow) {
  const { application, secret } = await registerApplication(fixture);
  const owner = user ?? (await createTestUser(fixture.db));
  const { code } = await authorizeCode(fixture.db, owner, application, { scope: "api openid" });
  const body = await token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri }, { basic: [application.uid, secret] });
  return { application, secret, user: owner, accessToken: body.access_token, refreshToken: body.refresh_token! };
}

async function issuePersonalAccessToken(db: Database, user: UserRow) {
  return insertPersonalAccessToken(db, user.id, { name: "checks", scopes: ["api"] }, new Date());
}

describe.each(testDatabases())("token checks on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);
  const adminContext = () => userContext(fixture.db, fixture.admin);

  it("answers a token it has checked from memory, until a change to what it was built from is announced", async () => {
    const user = await createTestUser(fixture.db);
    const oauth = await issueOAuthTokens(fixture, user);
    const personal = await issuePersonalAccessToken(fixture.db, user);
    await settle();
    await expectActor(fixture.db, oauth.accessToken, user);
    await expectActor(fixture.db, personal.token, user);

    await unannounced(fixture.db, async () => {
      await fixture.db.update(oauthAccessTokens).set({ revokedAt: new Date() }).where(eq(oauthAccessTokens.userId, user.id));
      await fixture.db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, personal.record.id));
    });
    // No query was made: both are still what the cache remembers.
    await expectActor(fixture.db, oauth.accessToken, user);
    await expectActor(fixture.db, personal.token, user);

    forgetTokenChecks(fixture.db, `user:${user.id}`);
    await expectRefused(fixture.db, oauth.accessToken, revokedAnswer);
    await expectRefused(fixture.db, personal.token, revokedAnswer);
  });

  it("refuses an access token revoked with /oauth/revoke on the very next request", async () => {
    const { application, secret, user, accessToken } = await issueOAuthTokens(fixture);
    await expectActor(fixture.db, accessToken, user);
    expect((await getTokenInfo(fixture.db, accessToken, new Date())).resource_owner_id).toBe(user.id);

    await revokeToken(fixture.db, formRequest("/oauth/revoke", { token: accessToken }, { basic: [application.uid, secret] }), { token: accessToken }, new Date());
    await expectRefused(fixture.db, accessToken, revokedAnswer);
    await expect(getTokenInfo(fixture.db, accessToken, new Date())).rejects.toMatchObject({ error: "invalid_token", status: 401 });
  });

  it("refuses a personal access token revoked or rotated through the API on the very next request", async () => {
    const user = await createTestUser(fixture.db);
    const revoked = await issuePersonalAccessToken(fixture.db, user);
    const rotated = await issuePersonalAccessToken(fixture.db, user);
    await expectActor(fixture.db, revoked.token, user);
    await expectActor(fixture.db, rotated.token, user);

    await revokePersonalAccessToken(userContext(fixture.db, user), revoked.record.id);
    await expectRefused(fixture.db, revoked.token, revokedAnswer);

    const successor = await rotatePersonalAccessToken(userContext(fixture.db, user), rotated.record.id, {});
    await expectRefused(fixture.db, rotated.token, revokedAnswer);
    await expectActor(fixture.db, successor.token, user);
  });

  it("retires the old access token when its refresh token is rotated, and the whole grant when one is reused", async () => {
    const { application, secret, user, accessToken, refreshToken } = await issueOAuthTokens(fixture);
    await expectActor(fixture.db, accessToken, user);
    const refreshed = await token(fixture.db, { grant_type: "refresh_token", refresh_token: refreshToken }, { basic: [application.uid, secret] });
    await expectRefused(fixture.db, accessToken, revokedAnswer);
    await expectActor(fixture.db, refreshed.access_token, user);

    await expect(token(fixture.db, { grant_type: "refresh_token", refresh_token: refreshToken }, { basic: [application.uid, secret] })).rejects.toBeInstanceOf(
      OAuthError,
    );
    await expectRefused(fixture.db, refreshed.access_token, revokedAnswer);
  });

  it("stops every token of a blocked user at once, and lets them work again when unblocked", async () => {
    const user = await createTestUser(fixture.db);
    const oauth = await issueOAuthTokens(fixture, user);
    const personal = await issuePersonalAccessToken(fixture.db, user);
    await expectActor(fixture.db, oauth.accessToken, user);
    await expectActor(fixture.db, personal.token, user);

    expect(await blockUser(adminContext(), user.id)).toBe(true);
    await expectRefused(fixture.db, oauth.accessToken, blockedAnswer);
    await expectRefused(fixture.db, personal.token, blockedAnswer);
    await expect(getTokenInfo(fixture.db, oauth.accessToken, new Date())).rejects.toMatchObject({ error: "invalid_token" });

    expect(await unblockUser(adminContext(), user.id)).toBe(true);
    await expectActor(fixture.db, oauth.accessToken, user);
    await expectActor(fixture.db, personal.token, user);
  });

  it("hands the next request the user as an admin just changed them", async () => {
    const user = await createTestUser(fixture.db);
    const personal = await issuePersonalAccessToken(fixture.db, user);
    expect((await expectActor(fixture.db, personal.token, user)).user.isAdmin).toBe(false);
    await updateUserAsAdmin(adminContext(), user.id, { admin: true, name: "Renamed" });
    expect((await expectActor(fixture.db, personal.token, user)).user).toMatchObject({ isAdmin: true, name: "Renamed" });
  });

  it("refuses the tokens of an authorization the user revoked, and of a deleted application", async () => {
    const revoked = await issueOAuthTokens(fixture);
    await expectActor(fixture.db, revoked.accessToken, revoked.user);
    await revokeApplicationAuthorization(userContext(fixture.db, revoked.user), revoked.application.id);
    await expectRefused(fixture.db, revoked.accessToken, revokedAnswer);

    const deleted = await issueOAuthTokens(fixture);
    await expectActor(fixture.db, deleted.accessToken, deleted.user);
    await deleteApplication(adminContext(), deleted.application.id);
    await expectRefused(fixture.db, deleted.accessToken, unknownAnswer);
  });

  it("forgets a client credentials token's check when it is revoked or its application deleted", async () => {
    const info = (accessToken: string) => getTokenInfo(fixture.db, accessToken, new Date());
    const issue = async () => {
      const { application, secret } = await registerApplication(fixture);
      const body = await token(fixture.db, { grant_type: "client_credentials" }, { basic: [application.uid, secret] });
      // Checked once, so the next checks come from memory.
      expect((await info(body.access_token)).resource_owner_id).toBeNull();
      return { application, secret, accessToken: body.access_token };
    };
    const revoked = await issue();
    await revokeToken(
      fixture.db,
      formRequest("/oauth/revoke", { token: revoked.accessToken }, { basic: [revoked.application.uid, revoked.secret] }),
      { token: revoked.accessToken },
      new Date(),
    );
    await expect(info(revoked.accessToken)).rejects.toMatchObject({ error: "invalid_token", status: 401 });

    const deleted = await issue();
    await deleteApplication(adminContext(), deleted.application.id);
    await expect(info(deleted.accessToken)).rejects.toMatchObject({ error: "invalid_token", status: 401 });
  });

  it("refuses an application's old secret at once when it is renewed", async () => {
    const { application, secret, accessToken } = await issueOAuthTokens(fixture);
    const introspect = (clientSecret: string) =>
      introspectToken(
        fixture.db,
        formRequest("/oauth/introspect", { token: accessToken }, { basic: [application.uid, clientSecret] }),
        { token: accessToken },
        new Date(),
      );
    expect(await introspect(secret)).toMatchObject({ active: true, client_id: application.uid });
    const renewed = await renewApplicationSecret(adminContext(), application.id);
    await expect(introspect(secret)).rejects.toMatchObject({ error: "invalid_client", status: 401 });
    expect(await introspect(renewed.secret)).toMatchObject({ active: true, client_id: application.uid });
  });

  it("hears of a change any statement makes through the database's notification", async () => {
    const user = await createTestUser(fixture.db);
    const personal = await issuePersonalAccessToken(fixture.db, user);
    await expectActor(fixture.db, personal.token, user);
    // Nothing tells this process's cache directly: only the trigger's NOTIFY does.
    await fixture.db.update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    await eventually(() => expectRefused(fixture.db, personal.token, blockedAnswer));
  });
});

const serverUrl = process.env.TEST_DATABASE_URL;

describe.runIf(serverUrl)("token checks across processes on PostgreSQL", () => {
  let processes: Awaited<ReturnType<typeof twoProcesses>>;
  let here: DatabaseHandle;
  let there: DatabaseHandle;
  let fixture: OAuthFixture;

  beforeAll(async () => {
    processes = await twoProcesses(serverUrl!);
    ({ here, there } = processes);
    await startTokenCheckCache(here);
    await startTokenCheckCache(there);
    fixture = await oauthFixture(here.db);
  });
  afterAll(() => processes.close());

  it("a revoke, a rotation and a block on one process reach the other's cache within moments", async () => {
    const user = await createTestUser(here.db);
    const oauth = await issueOAuthTokens(fixture, user);
    const personal = await issuePersonalAccessToken(here.db, user);
    const other = await issuePersonalAccessToken(here.db, await createTestUser(here.db));
    await settle();
    for (const value of [oauth.accessToken, personal.token]) await expectActor(there.db, value, user);
    await expectActor(there.db, other.token, { id: other.record.userId });

    await revokePersonalAccessToken(userContext(here.db, user), personal.record.id);
    await eventually(() => expectRefused(there.db, personal.token, revokedAnswer));

    const refreshed = await token(here.db, { grant_type: "refresh_token", refresh_token: oauth.refreshToken }, { basic: [oauth.application.uid, oauth.secret] });
    await eventually(() => expectRefused(there.db, oauth.accessToken, revokedAnswer));
    await expectActor(there.db, refreshed.access_token, user);

    await blockUser(userContext(here.db, fixture.admin), user.id);
    await eventually(() => expectRefused(there.db, refreshed.access_token, blockedAnswer));
    // Only what the changes touched was dropped.
    await expectActor(there.db, other.token, { id: other.record.userId });
  });

  it("forgets everything it cached when its notification connection drops, and hears changes again once back", async () => {
    const user = await createTestUser(here.db);
    const personal = await issuePersonalAccessToken(here.db, user);
    await settle();
    await expectActor(there.db, personal.token, user);
    await unannounced(here.db, () => here.db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, personal.record.id)));
    await expectActor(there.db, personal.token, user);

    const before = await listeningConnections(here.db);
    expect(before).toHaveLength(2);
    await dropConnections(here.db, before);
    await eventually(() => expectRefused(there.db, personal.token, revokedAnswer));

    await eventually(async () => {
      const after = await listeningConnections(here.db);
      expect(after).toHaveLength(2);
      expect(after.some((pid) => before.includes(pid))).toBe(false);
    });
    const next = await issuePersonalAccessToken(here.db, user);
    await settle();
    await expectActor(there.db, next.token, user);
    await blockUser(userContext(here.db, fixture.admin), user.id);
    await eventually(() => expectRefused(there.db, next.token, blockedAnswer));
  });
});
