import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthGrants } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { testDatabases } from "@/lib/testing/databases";
import { createTestUser, userContext } from "@/lib/testing/fixtures";
import {
  authorizeCode,
  expectOAuthError,
  formRequest,
  oauthFixtureForSuite,
  registerApplication,
  testRedirectUri,
  token,
} from "@/lib/testing/oauth";
import { resolveOAuthAccessToken } from "./api-token";
import { checkAuthorizationRequest } from "./authorize";
import { getTokenInfo, introspectToken } from "./token-info";

const mcpResource = `${env.EXTERNAL_URL}/api/v4/mcp`;

describe.each(testDatabases())("resource indicators (RFC 8707) on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);

  async function boundTokens(resource: string | undefined, scope = "api") {
    const { application, secret } = await registerApplication(fixture, { scopes: ["api", "read_user", "mcp"] });
    const user = await createTestUser(fixture.db);
    const { code } = await authorizeCode(fixture.db, user, application, { scope, ...(resource ? { resource } : {}) });
    const exchange = { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid, client_secret: secret };
    return { application, secret, user, code, exchange };
  }

  it("binds the grant to the resource named at the authorization endpoint, and its tokens report it as their audience", async () => {
    const { application, secret, exchange } = await boundTokens("https://rs.example/api?tenant=1");
    const at = new Date();
    const body = await token(fixture.db, { ...exchange, resource: "https://rs.example/api?tenant=1" }, { now: at });
    const info = await getTokenInfo(fixture.db, body.access_token, at);
    expect(info).toEqual({
      resource_owner_id: expect.any(Number),
      scope: ["api"],
      expires_in: 7200,
      application: { uid: application.uid },
      created_at: body.created_at,
      scopes: ["api"],
      expires_in_seconds: 7200,
      aud: "https://rs.example/api?tenant=1",
    });
    const introspection = await introspectToken(
      fixture.db,
      formRequest("/oauth/introspect", {}, { basic: [application.uid, secret] }),
      { token: body.access_token },
      new Date(),
    );
    expect(introspection).toMatchObject({ active: true, aud: "https://rs.example/api?tenant=1" });
    const actor = await resolveOAuthAccessToken(fixture.db, body.access_token, new Date());
    expect(actor).toMatchObject({ kind: "user", oauthTokenResource: "https://rs.example/api?tenant=1" });
  });

  it("keeps GitLab's exact bodies for tokens bound to no resource, and tells the API layer so with null", async () => {
    const { exchange } = await boundTokens(undefined);
    const body = await token(fixture.db, exchange);
    expect(Object.keys(await getTokenInfo(fixture.db, body.access_token, new Date()))).toEqual([
      "resource_owner_id",
      "scope",
      "expires_in",
      "application",
      "created_at",
      "scopes",
      "expires_in_seconds",
    ]);
    expect(await resolveOAuthAccessToken(fixture.db, body.access_token, new Date())).toMatchObject({ oauthTokenResource: null });
  });

  it("accepts a code exchange that names no resource or the same one, and refuses another with invalid_target, code unspent", async () => {
    const { exchange } = await boundTokens("https://rs.example/api");
    const other = await expectOAuthError(token(fixture.db, { ...exchange, resource: "https://other.example/api" }), "invalid_target");
    expect(other.body()).toEqual({ error: "invalid_target", error_description: "The resource must be the one the authorization was given for." });
    await expectOAuthError(token(fixture.db, { ...exchange, resource: "https://rs.example/api#x" }), "invalid_target");
    // The refused requests did not spend the code.
    expect((await token(fixture.db, exchange)).scope).toBe("api");

    const unbound = await boundTokens(undefined);
    const failure = await expectOAuthError(token(fixture.db, { ...unbound.exchange, resource: "https://rs.example/api" }), "invalid_target");
    expect(failure.description).toBe(
      "The authorization was given for no particular resource; request a resource at the authorization endpoint.",
    );
  });

  it("keeps the audience through refreshes; a refresh naming another resource is refused", async () => {
    const { application, secret, exchange } = await boundTokens("https://rs.example/api");
    const first = await token(fixture.db, exchange);
    const refresh = { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: application.uid, client_secret: secret };
    await expectOAuthError(token(fixture.db, { ...refresh, resource: "https://other.example/" }), "invalid_target");
    const second = await token(fixture.db, { ...refresh, resource: "https://rs.example/api" });
    const third = await token(fixture.db, { ...refresh, refresh_token: second.refresh_token! });
    expect((await getTokenInfo(fixture.db, third.access_token, new Date())).aud).toBe("https://rs.example/api");
  });

  it("sends a malformed resource back to the client as invalid_target, and asks for mcp alone for the MCP endpoint", async () => {
    const { application } = await registerApplication(fixture, { scopes: ["api", "mcp"] });
    const ctx = userContext(fixture.db, await createTestUser(fixture.db));
    const base = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code", state: "s" };
    for (const [resource, description] of [
      ["https://rs.example/#fragment", "The resource must not contain a fragment."],
      ["relative/path", "The resource must be an absolute URI."],
      [`https://rs.example/${"x".repeat(2048)}`, "The resource must be at most 2048 characters."],
    ] as const) {
      const check = await checkAuthorizationRequest(ctx, { ...base, resource });
      expect(check.kind).toBe("redirect");
      const location = new URL((check as { location: string }).location);
      expect(Object.fromEntries(location.searchParams)).toEqual({ error: "invalid_target", error_description: description, state: "s" });
    }
    // GitLab: a request for its MCP server is for `mcp`, whatever scope it named.
    expect(await checkAuthorizationRequest(ctx, { ...base, scope: "api", resource: mcpResource })).toMatchObject({
      kind: "valid",
      request: { scopes: ["mcp"], resource: mcpResource },
    });
    const { code } = await authorizeCode(fixture.db, await createTestUser(fixture.db), application, { resource: mcpResource });
    expect(code).toMatch(/^[0-9a-f]{64}$/);
    const grants = await fixture.db.select().from(oauthGrants).where(eq(oauthGrants.applicationId, application.id));
    expect(grants.map((grant) => [grant.scopes, grant.resource])).toEqual([[["mcp"], mcpResource]]);
  });
});
