import { describe, expect, it } from "vitest";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { eq } from "drizzle-orm";
import { oauthApplications } from "@/lib/db/schema";
import { createApplicationAsAdmin, createOwnApplication, updateApplicationSettings } from "./applications";
import { beginAuthorization, prepareConsent } from "./authorize";
import { readClientMetadata, registerDynamicClient } from "./dynamic-registration";

const redirectUri = "https://client.example/callback?tenant=1";

describe.each(testDatabases())("consent screen on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function ownedApplication(confidential = false) {
    const owner = await createTestUser(handle.db);
    const { application } = await createOwnApplication(userContext(handle.db, owner), {
      name: "Reader",
      redirectUri,
      scopes: ["openid", "read_user", "api"],
      confidential,
    });
    return { owner, application };
  }

  it("shows the application, its owner, the person, each scope's words and where the browser goes", async () => {
    const { owner, application } = await ownedApplication();
    const user = await createTestUser(handle.db);
    const step = await prepareConsent(userContext(handle.db, user), {
      client_id: application.uid,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: "read_user openid",
      state: "xyz",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      unrelated: "dropped",
    });
    expect(step).toEqual({
      kind: "consent",
      screen: {
        application: { name: "Reader" },
        owner: { name: owner.name, username: owner.username },
        user: { name: user.name, username: user.username, isAdmin: false },
        scopes: [
          { scope: "read_user", title: "Read your personal information", description: expect.stringContaining("/user API endpoint") },
          { scope: "openid", title: "Authenticate using OpenID Connect", description: expect.stringContaining("OpenID Connect") },
        ],
        redirectTarget: "client.example",
        implicitGrant: false,
        unverified: null,
        // Only what the request carried, so the decision is checked against exactly the same request.
        fields: {
          client_id: application.uid,
          redirect_uri: redirectUri,
          response_type: "code",
          scope: "read_user openid",
          state: "xyz",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          code_challenge_method: "S256",
        },
      },
    });
  });

  it("names no owner for instance-wide applications and flags administrators", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const { application } = await createApplicationAsAdmin(userContext(handle.db, admin), {
      name: "Instance",
      redirectUri: "com.example.app:/oauth",
      scopes: ["api"],
    });
    const step = await prepareConsent(userContext(handle.db, admin), {
      client_id: application.uid,
      redirect_uri: "com.example.app:/oauth",
      response_type: "code",
    });
    expect(step).toMatchObject({
      kind: "consent",
      screen: {
        owner: null,
        user: { isAdmin: true },
        scopes: [{ scope: "api", title: "Access the API on your behalf" }],
        redirectTarget: "com.example.app",
        fields: { client_id: application.uid, redirect_uri: "com.example.app:/oauth", response_type: "code" },
      },
    });
  });

  it("shows untrusted clients and redirect URIs as an error, and sends other problems back to the client", async () => {
    const { application } = await ownedApplication();
    const ctx = userContext(handle.db, await createTestUser(handle.db));
    expect(await prepareConsent(ctx, { client_id: "nope", redirect_uri: redirectUri, response_type: "code" })).toMatchObject({
      kind: "error_page",
      error: "invalid_client",
    });
    expect(
      await prepareConsent(ctx, { client_id: application.uid, redirect_uri: "https://evil.example/", response_type: "code" }),
    ).toMatchObject({ kind: "error_page", error: "invalid_redirect_uri" });

    const missingPkce = await prepareConsent(ctx, { client_id: application.uid, redirect_uri: redirectUri, response_type: "code", state: "s" });
    expect(missingPkce.kind).toBe("redirect");
    const location = new URL((missingPkce as { location: string }).location);
    expect(location.origin + location.pathname).toBe("https://client.example/callback");
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ tenant: "1", error: "invalid_request", state: "s" });
  });

  it("checks in the same order as /oauth/authorize: untrusted client first, then sign-in, then the rest", async () => {
    const { application } = await ownedApplication();
    const anonymous = anonymousTestContext(handle.db);
    expect(await prepareConsent(anonymous, { client_id: "nope", redirect_uri: redirectUri, response_type: "code" })).toMatchObject({
      kind: "error_page",
      error: "invalid_client",
    });
    expect(await prepareConsent(anonymous, { client_id: application.uid, redirect_uri: redirectUri, response_type: "code", state: ["a", "b"] })).toMatchObject({
      kind: "error_page",
      error: "invalid_request",
    });
    // No PKCE from a public client: back to the client for a signed-in person, but nobody has signed in.
    expect(await prepareConsent(anonymous, { client_id: application.uid, redirect_uri: redirectUri, response_type: "code", state: "s" })).toEqual({
      kind: "sign_in",
    });
  });

  it("marks a dynamically registered application unverified until an admin trusts it, and carries the resource to the form", async () => {
    const request = new Request("http://localhost/oauth/register", {
      method: "POST",
      body: JSON.stringify({ client_name: "Agent", redirect_uris: ["http://127.0.0.1:4567/cb"] }),
    });
    const registered = await registerDynamicClient(anonymousTestContext(handle.db), null, () => readClientMetadata(request));
    const user = await createTestUser(handle.db);
    const query = {
      client_id: registered.client_id,
      redirect_uri: "http://127.0.0.1:4567/cb",
      response_type: "code",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      resource: "https://rs.example/mcp",
    };
    expect(await prepareConsent(userContext(handle.db, user), query)).toMatchObject({
      kind: "consent",
      screen: {
        application: { name: "[Unverified Dynamic Application] Agent" },
        owner: null,
        scopes: [{ scope: "mcp", title: "Use the MCP server on your behalf" }],
        redirectTarget: "127.0.0.1:4567",
        unverified: { kind: "dynamic" },
        fields: query,
      },
    });
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const [row] = await handle.db.select().from(oauthApplications).where(eq(oauthApplications.uid, registered.client_id));
    await updateApplicationSettings(userContext(handle.db, admin), row!.id, { trusted: true });
    expect(await prepareConsent(userContext(handle.db, user), query)).toMatchObject({ kind: "consent", screen: { unverified: null } });
    // Trusted: /oauth/authorize sends the person straight back with a code.
    const step = await beginAuthorization(userContext(handle.db, user), query);
    expect(step.kind).toBe("redirect");
    expect(new URL((step as { location: string }).location).searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("shows a person whose email address is not confirmed an error page instead of the consent screen", async () => {
    const { application } = await ownedApplication(true);
    const ctx = userContext(handle.db, await createTestUser(handle.db, { confirmed: false }));
    expect(await prepareConsent(ctx, { client_id: application.uid, redirect_uri: redirectUri, response_type: "code" })).toEqual({
      kind: "error_page",
      error: "unconfirmed_email",
      description: "Verify the email address in your account profile before you sign in.",
    });
  });
});
