import { afterAll, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Database } from "@/lib/db";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import * as schema from "@/lib/db/schema";
import { createPostgresDatabase } from "@/lib/testing/databases";
import { createTestUser } from "@/lib/testing/fixtures";
import { authorizeCode, formRequest, oauthFixture, registerApplication, testRedirectUri, token, type OAuthFixture } from "@/lib/testing/oauth";
import { startTokenCheckCache } from "@/lib/token-checks/checks";
import { authenticateToken } from "@/lib/api/authenticate";
import { getSigningKey } from "./keys";
import { getTokenInfo, introspectToken } from "./token-info";

const serverUrl = process.env.TEST_DATABASE_URL;

/**
 * The statements the hot OAuth paths send, counted on the wire (postgres.js reports each one, BEGIN and COMMIT
 * included). The token endpoint's throttle adds its own counter update on PostgreSQL; it is not counted here.
 */
describe.runIf(serverUrl)("statements per OAuth request on PostgreSQL", () => {
  const sent: string[] = [];
  let drop: () => Promise<void>;
  let handle: DatabaseHandle;
  let counted: ReturnType<typeof postgres>;
  let db: Database;
  let fixture: OAuthFixture;

  beforeAll(async () => {
    const database = await createPostgresDatabase(serverUrl!);
    drop = database.drop;
    handle = await openDatabase({ url: database.url, poolSize: 1 });
    await handle.migrate();
    counted = postgres(database.url, { max: 2, onnotice: () => {}, debug: (_connection, query) => sent.push(query.trim().split(/\s+/)[0]!.toLowerCase()) });
    db = drizzle({ client: counted, schema }) as unknown as Database;
    await startTokenCheckCache({ ...handle, db });
    fixture = await oauthFixture(db);
    // The signing key is read once per process, not per request.
    await getSigningKey(db);
  });
  afterAll(async () => {
    await counted.end();
    await handle.close();
    await drop();
  });

  async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
    // Let notifications from earlier steps arrive first, so a cache fill is not dropped for one of them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    sent.length = 0;
    await call();
    return [...sent];
  }

  it.each(["api", "api openid"])("exchanges a code in two statements, and refreshes in two (scope %s)", async (scope) => {
    const { application, secret } = await registerApplication(fixture);
    const user = await createTestUser(db);
    const { code } = await authorizeCode(db, user, application, { scope });
    let first: Awaited<ReturnType<typeof token>> | undefined;
    const exchange = await statementsOf(async () => {
      first = await token(db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri }, { basic: [application.uid, secret] });
    });
    // The lookup, then one statement that spends the code and inserts the tokens; an ID token reads the user's groups.
    const idTokenGroups = scope.includes("openid") ? ["select"] : [];
    expect(exchange).toEqual(["select", "with", ...idTokenGroups]);
    expect(first?.id_token !== undefined).toBe(scope.includes("openid"));

    const refresh = await statementsOf(() =>
      token(db, { grant_type: "refresh_token", refresh_token: first!.refresh_token! }, { basic: [application.uid, secret] }),
    );
    expect(refresh).toEqual(["select", "with", ...idTokenGroups]);
  });

  it("issues a client credentials token in one statement once the client is known, and checks it from memory", async () => {
    const { application, secret } = await registerApplication(fixture);
    const exchange = () => token(db, { grant_type: "client_credentials" }, { basic: [application.uid, secret] });
    // The client is read once (then cached), and the grant and its token are inserted by one statement.
    expect(await statementsOf(exchange)).toEqual(["select", "with"]);
    let issued: Awaited<ReturnType<typeof token>> | undefined;
    expect(
      await statementsOf(async () => {
        issued = await exchange();
      }),
    ).toEqual(["with"]);
    expect(await statementsOf(() => getTokenInfo(db, issued!.access_token, new Date()))).toEqual(["select"]);
    expect(await statementsOf(() => getTokenInfo(db, issued!.access_token, new Date()))).toEqual([]);
  });

  it("checks a token and a client it has seen without a statement", async () => {
    const { application, secret } = await registerApplication(fixture);
    const user = await createTestUser(db);
    const { code } = await authorizeCode(db, user, application);
    const issued = await token(db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri }, { basic: [application.uid, secret] });
    expect(await statementsOf(() => getTokenInfo(db, issued.access_token, new Date()))).toEqual(["select"]);
    expect(await statementsOf(() => getTokenInfo(db, issued.access_token, new Date()))).toEqual([]);
    expect(await statementsOf(() => authenticateToken(db, { value: issued.access_token, bearer: true }, new Date()))).toEqual([]);
    const params = { token: issued.access_token };
    const introspect = () => introspectToken(db, formRequest("/oauth/introspect", params, { basic: [application.uid, secret] }), params, new Date());
    // The authorization request looked the client up by its client_id through the cache client authentication reads.
    expect(await statementsOf(introspect)).toEqual([]);
    // A client no request has named yet is read once.
    const unseen = await registerApplication(fixture);
    const introspectAsUnseen = () =>
      introspectToken(db, formRequest("/oauth/introspect", params, { basic: [unseen.application.uid, unseen.secret] }), params, new Date());
    expect(await statementsOf(introspectAsUnseen)).toEqual(["select"]);
    expect(await statementsOf(introspectAsUnseen)).toEqual([]);
  });
});
