import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthApplications, oauthGrants } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { testDatabases } from "@/lib/testing/databases";
import {
  authorizeCode,
  expectOAuthError,
  oauthFailure,
  oauthFixtureForSuite,
  registerApplication,
  testRedirectUri,
  testS256Challenge,
  testVerifier,
  token,
} from "@/lib/testing/oauth";
import { ForbiddenError } from "@/lib/errors";
import { listApplicationsForAdminArea, updateApplicationSettings } from "./applications";
import { checkAuthorizationRequest } from "./authorize";
import { discoveryDocument } from "./discovery";
import { readClientMetadata, registerDynamicClient, removeUnauthorizedSelfRegisteredClients } from "./dynamic-registration";

function registrationRequest(body: string): Request {
  return new Request("http://localhost/oauth/register", { method: "POST", headers: { "Content-Type": "application/json" }, body });
}

let addressCounter = 0;
/** Each test registers from an address of its own, so the per-address throttle counts only its own requests. */
function freshAddress(): string {
  addressCounter++;
  return `198.51.100.${addressCounter}`;
}

describe.each(testDatabases())("dynamic client registration on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);

  async function register(body: unknown, address: string | null = freshAddress()) {
    const request = registrationRequest(typeof body === "string" ? body : JSON.stringify(body));
    return registerDynamicClient(anonymousTestContext(fixture.db), address, () => readClientMetadata(request));
  }

  async function refusal(body: unknown) {
    const failure = await oauthFailure(register(body));
    return { status: failure.status, body: failure.body() };
  }

  describe("POST /oauth/register", () => {
    it("registers a public, PKCE-only application limited to mcp and answers with GitLab's body", async () => {
      const before = Math.floor(Date.now() / 1000);
      const registered = await register({
        client_name: "Claude",
        redirect_uris: ["http://127.0.0.1:33418/callback", "https://claude.ai/api/mcp/auth_callback"],
        // Ignored, as GitLab ignores everything but the name and the redirect URIs.
        scope: "api sudo",
        grant_types: ["password"],
        token_endpoint_auth_method: "client_secret_basic",
      });
      expect(Object.keys(registered)).toEqual([
        "client_id",
        "client_id_issued_at",
        "redirect_uris",
        "token_endpoint_auth_method",
        "grant_types",
        "require_pkce",
        "client_name",
        "scope",
        "dynamic",
      ]);
      expect(registered).toEqual({
        client_id: expect.stringMatching(/^[0-9a-f]{64}$/),
        client_id_issued_at: expect.any(Number),
        redirect_uris: ["http://127.0.0.1:33418/callback", "https://claude.ai/api/mcp/auth_callback"],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        require_pkce: true,
        client_name: "[Unverified Dynamic Application] Claude",
        scope: "mcp",
        dynamic: true,
      });
      expect(registered.client_id_issued_at).toBeGreaterThanOrEqual(before);
      const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, registered.client_id));
      expect(row).toMatchObject({
        name: "[Unverified Dynamic Application] Claude",
        scopes: ["mcp"],
        confidential: false,
        trusted: false,
        registration: "dynamic",
        ownerId: null,
        redirectUris: ["http://127.0.0.1:33418/callback", "https://claude.ai/api/mcp/auth_callback"],
      });
    });

    it("takes a single redirect URI as a string, and private-use schemes as native clients send them", async () => {
      expect((await register({ client_name: "Cursor", redirect_uris: "cursor://anysphere.cursor-retrieval/oauth/callback" })).redirect_uris).toEqual([
        "cursor://anysphere.cursor-retrieval/oauth/callback",
      ]);
    });

    it("refuses a missing, non-string or too long client_name with invalid_client_metadata", async () => {
      const error = (description: string) => ({ status: 400, body: { error: "invalid_client_metadata", error_description: description } });
      expect(await refusal({ redirect_uris: [testRedirectUri] })).toEqual(error("client_name is missing"));
      expect(await refusal({ client_name: "  ", redirect_uris: [testRedirectUri] })).toEqual(error("client_name is missing"));
      expect(await refusal({ client_name: 7, redirect_uris: [testRedirectUri] })).toEqual(error("client_name must be a string"));
      expect(await refusal({ client_name: "x".repeat(200), redirect_uris: [testRedirectUri] })).toEqual(error("client_name is too long"));
      expect((await register({ client_name: "x".repeat(199), redirect_uris: [testRedirectUri] })).client_name).toBe(`[Unverified Dynamic Application] ${"x".repeat(199)}`);
    });

    it("refuses hostile and malformed redirect URIs with GitLab's messages", async () => {
      const error = (description: string) => ({ status: 400, body: { error: "invalid_client_metadata", error_description: description } });
      expect(await refusal({ client_name: "A", redirect_uris: ["javascript:alert(1)"] })).toEqual(error("Redirect URI is forbidden by the server."));
      expect(await refusal({ client_name: "A", redirect_uris: ["data:text/html,<script>alert(1)</script>"] })).toEqual(
        error("Redirect URI is forbidden by the server."),
      );
      expect(await refusal({ client_name: "A", redirect_uris: ["file:///etc/passwd"] })).toEqual(error("Redirect URI is forbidden by the server."));
      expect(await refusal({ client_name: "A", redirect_uris: ["https://client.example/cb#frag"] })).toEqual(
        error("Redirect URI cannot contain a fragment."),
      );
      expect(await refusal({ client_name: "A", redirect_uris: ["/relative"] })).toEqual(error("Redirect URI must be an absolute URI."));
      expect(await refusal({ client_name: "A", redirect_uris: [testRedirectUri, "javascript:x", "/x"] })).toEqual(
        error("Redirect URI is forbidden by the server., Redirect URI must be an absolute URI."),
      );
      expect(await refusal({ client_name: "A", redirect_uris: [] })).toEqual(error("Redirect URI can't be blank"));
      expect(await refusal({ client_name: "A" })).toEqual(error("Redirect URI can't be blank"));
      expect(await refusal({ client_name: "A", redirect_uris: [1] })).toEqual(error("redirect_uris must be a string or a list of strings"));
      expect(await refusal({ client_name: "A", redirect_uris: Array.from({ length: 21 }, (_, index) => `https://c.example/${index}`) })).toEqual(
        error("redirect_uris may list at most 20 URIs"),
      );
      expect(await refusal({ client_name: "A", redirect_uris: ["https://c.example/\u0000"] })).toEqual(error("Redirect URI must be a valid URI."));
    });

    it("refuses bodies that are not a JSON object, and bodies over 16 KiB with 413", async () => {
      const error = (description: string, status = 400) => ({ status, body: { error: "invalid_client_metadata", error_description: description } });
      expect(await refusal("{not json")).toEqual(error("The request body is not valid JSON."));
      expect(await refusal("")).toEqual(error("The request body is not valid JSON."));
      expect(await refusal("[1]")).toEqual(error("The request body must be a JSON object."));
      expect(await refusal("null")).toEqual(error("The request body must be a JSON object."));
      expect(await refusal({ client_name: "A", redirect_uris: [testRedirectUri], padding: "x".repeat(17 * 1024) })).toEqual(
        error("The request body is larger than 16384 bytes.", 413),
      );
    });

    it("answers 404 when an admin turned registration off, and the authorize page says why a client is unknown", async () => {
      expect(await discoveryDocument(fixture.db)).toMatchObject({ registration_endpoint: `${env.EXTERNAL_URL}/oauth/register`, client_id_metadata_document_supported: true });
      env.OAUTH_DYNAMIC_CLIENT_REGISTRATION = false;
      try {
        expect(await discoveryDocument(fixture.db)).not.toHaveProperty("registration_endpoint");
        const failure = await oauthFailure(register({ client_name: "Off", redirect_uris: [testRedirectUri] }));
        expect({ status: failure.status, body: failure.body() }).toEqual({
          status: 404,
          body: { error: "not_found", error_description: "Dynamic client registration is turned off on this instance." },
        });
        const ctx = userContext(fixture.db, await createTestUser(fixture.db));
        expect(await checkAuthorizationRequest(ctx, { client_id: "f".repeat(64), redirect_uri: testRedirectUri, response_type: "code" })).toEqual({
          kind: "error_page",
          error: "invalid_client",
          description:
            "The OAuth client is not recognized. When dynamic client registration is disabled, new clients cannot register. Create an OAuth application and configure your MCP client with its client ID.",
        });
      } finally {
        env.OAUTH_DYNAMIC_CLIENT_REGISTRATION = true;
      }
    });

    it("registers at most five clients an hour from one address (GitLab's oauth_dynamic_registration limit)", async () => {
      const address = freshAddress();
      for (let attempt = 0; attempt < 5; attempt++) await register({ client_name: `Flood ${attempt}`, redirect_uris: [testRedirectUri] }, address);
      const before = await fixture.db.select({ id: oauthApplications.id }).from(oauthApplications);
      // Counted before the body is read: a refused request costs nothing, whatever it carries.
      const refused = await register("x".repeat(100_000), address).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitExceeded);
      expect((refused as RateLimitExceeded).throttle).toEqual({ name: "oauth_dynamic_registration", limit: 5, periodSeconds: 3600 });
      expect(await fixture.db.select({ id: oauthApplications.id }).from(oauthApplications)).toHaveLength(before.length);
      // Another address is counted apart.
      await register({ client_name: "Elsewhere", redirect_uris: [testRedirectUri] });
    });
  });

  describe("authorizing a dynamic application", () => {
    async function dynamicApplication() {
      const registered = await register({ client_name: "Agent", redirect_uris: [testRedirectUri] });
      const [application] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, registered.client_id));
      return application!;
    }

    it("gets exactly mcp, whether it asks for nothing or for more (GitLab MR 208967)", async () => {
      const application = await dynamicApplication();
      const ctx = userContext(fixture.db, await createTestUser(fixture.db));
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code", code_challenge: testS256Challenge, code_challenge_method: "S256" };
      for (const scope of [undefined, "api", "mcp api sudo"]) {
        const check = await checkAuthorizationRequest(ctx, scope === undefined ? base : { ...base, scope });
        expect(check).toMatchObject({ kind: "valid", request: { scopes: ["mcp"], resource: null } });
      }
    });

    it("must use PKCE with S256: an error page otherwise, as GitLab's", async () => {
      const application = await dynamicApplication();
      const ctx = userContext(fixture.db, await createTestUser(fixture.db));
      const base = { client_id: application.uid, redirect_uri: testRedirectUri, response_type: "code", state: "s" };
      expect(await checkAuthorizationRequest(ctx, base)).toEqual({
        kind: "error_page",
        error: "pkce_required_for_dynamic_applications",
        description: "PKCE is required for dynamically registered applications: send a code_challenge with code_challenge_method S256.",
      });
      expect(await checkAuthorizationRequest(ctx, { ...base, code_challenge: testVerifier, code_challenge_method: "plain" })).toEqual({
        kind: "error_page",
        error: "invalid_code_challenge_method",
        description: "The code_challenge_method must be S256 for dynamically registered applications.",
      });
    });

    it("is exchanged for an mcp token with the verifier, and its name records who authorized it first", async () => {
      const application = await dynamicApplication();
      const user = await createTestUser(fixture.db);
      const { code } = await authorizeCode(fixture.db, user, application, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      const failure = await expectOAuthError(
        token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: testRedirectUri, client_id: application.uid }),
        "invalid_request",
      );
      expect(failure.description).toBe("PKCE code_verifier is required for dynamic OAuth applications");
      const body = await token(fixture.db, {
        grant_type: "authorization_code",
        code,
        redirect_uri: testRedirectUri,
        client_id: application.uid,
        code_verifier: testVerifier,
      });
      expect(body.scope).toBe("mcp");
      const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.id, application.id));
      expect(row!.name).toBe(`[Unverified Dynamic Application] Agent — authorized by @${user.username}`);
      // Once: the next person's approval leaves the name alone.
      await authorizeCode(fixture.db, await createTestUser(fixture.db), row!, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      const [again] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.id, application.id));
      expect(again!.name).toBe(row!.name);
    });
  });

  describe("the admin area", () => {
    it("lists applications newest first, the unverified ones on their own, searchable by name or client ID, for admins only", async () => {
      const marker = `Listed${Date.now()}`;
      const manual = (await registerApplication(fixture)).application;
      const first = await register({ client_name: `${marker} one`, redirect_uris: [testRedirectUri] });
      const second = await register({ client_name: `${marker} two`, redirect_uris: [testRedirectUri] });
      const adminCtx = userContext(fixture.db, fixture.admin);
      const page = { page: 1, perPage: 20, offset: 0 };
      const names = async (filter: Parameters<typeof listApplicationsForAdminArea>[1]) =>
        (await listApplicationsForAdminArea(adminCtx, filter, page)).items.map((application) => application.uid);
      expect(await names({ unverifiedOnly: true, search: marker })).toEqual([second.client_id, first.client_id]);
      expect(await names({ unverifiedOnly: false, search: first.client_id })).toEqual([first.client_id]);
      expect((await names({ unverifiedOnly: false })).slice(0, 3)).toEqual([second.client_id, first.client_id, manual.uid]);
      expect(await names({ unverifiedOnly: true, search: manual.name })).toEqual([]);
      const [secondRow] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, second.client_id));
      await updateApplicationSettings(adminCtx, secondRow!.id, { trusted: true });
      expect(await names({ unverifiedOnly: true, search: marker })).toEqual([first.client_id]);
      await expect(listApplicationsForAdminArea(userContext(fixture.db, await createTestUser(fixture.db)), { unverifiedOnly: false }, page)).rejects.toBeInstanceOf(
        ForbiddenError,
      );
    });
  });

  describe("housekeeping", () => {
    it("removes self-registered applications nobody authorized within a day, and keeps every other", async () => {
      const now = new Date();
      const dayAndMinuteAgo = new Date(now.getTime() - (24 * 60 + 1) * 60 * 1000);
      const ids = async (body: unknown) => {
        const registered = await register(body);
        const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, registered.client_id));
        return row!;
      };
      const stale = await ids({ client_name: "Stale", redirect_uris: [testRedirectUri] });
      const authorized = await ids({ client_name: "Authorized", redirect_uris: [testRedirectUri] });
      const trusted = await ids({ client_name: "Trusted", redirect_uris: [testRedirectUri] });
      const young = await ids({ client_name: "Young", redirect_uris: [testRedirectUri] });
      const manual = (await registerApplication(fixture)).application;
      for (const row of [stale, authorized, trusted, manual]) {
        await fixture.db.update(oauthApplications).set({ createdAt: dayAndMinuteAgo }).where(eq(oauthApplications.id, row.id));
      }
      await authorizeCode(fixture.db, await createTestUser(fixture.db), authorized, { code_challenge: testS256Challenge, code_challenge_method: "S256" });
      await updateApplicationSettings(userContext(fixture.db, fixture.admin), trusted.id, { trusted: true });

      const result = await removeUnauthorizedSelfRegisteredClients(fixture.db, now);
      expect(result.removed).toBeGreaterThanOrEqual(1);
      const remaining = new Set((await fixture.db.select({ id: oauthApplications.id }).from(oauthApplications)).map((row) => row.id));
      expect(remaining.has(stale.id)).toBe(false);
      expect([authorized, trusted, young, manual].every((row) => remaining.has(row.id))).toBe(true);
      expect(await fixture.db.select().from(oauthGrants).where(eq(oauthGrants.applicationId, authorized.id))).toHaveLength(1);
    });
  });
});
