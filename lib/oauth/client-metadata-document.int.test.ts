import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { oauthApplications } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { testDatabases } from "@/lib/testing/databases";
import { createTestUser, userContext } from "@/lib/testing/fixtures";
import { authorizeCode, oauthFixtureForSuite, testS256Challenge, testVerifier, token } from "@/lib/testing/oauth";
import { checkAuthorizationRequest, prepareConsent } from "./authorize";
import { cacheSeconds } from "./client-metadata-document";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A client's web server on this machine: each test says how it answers. */
let server: Server;
let origin: string;
let handler: Handler = (_request, response) => response.end();
let hits = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES = false;
});

let documentCounter = 0;
function documentUrl(): string {
  documentCounter++;
  return `${origin}/clients/${documentCounter}/metadata.json`;
}

function serveJson(document: unknown, headers: Record<string, string> = {}): void {
  handler = (_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json", ...headers });
    response.end(JSON.stringify(document));
  };
}

const redirectUri = "http://127.0.0.1:7777/callback";

describe("caching rules", () => {
  it("uses a document for as long as its Cache-Control says, between a minute and a day; an hour when it says nothing", () => {
    expect(cacheSeconds(undefined)).toBe(3600);
    expect(cacheSeconds("public, max-age=600")).toBe(600);
    expect(cacheSeconds("max-age=5")).toBe(60);
    expect(cacheSeconds("max-age=999999999")).toBe(86400);
    expect(cacheSeconds("no-store")).toBe(60);
    expect(cacheSeconds("no-cache, max-age=600")).toBe(60);
  });
});

describe.each(testDatabases())("client ID metadata documents on $name", ({ open }) => {
  const fixture = oauthFixtureForSuite(open);

  async function authorizeWith(clientId: string, extra: Record<string, string> = {}) {
    const ctx = userContext(fixture.db, await createTestUser(fixture.db));
    return checkAuthorizationRequest(ctx, {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      code_challenge: testS256Challenge,
      code_challenge_method: "S256",
      ...extra,
    });
  }

  async function refusedWith(clientId: string): Promise<string> {
    const check = await authorizeWith(clientId);
    if (check.kind !== "error_page") throw new Error(`expected an error page, got ${JSON.stringify(check)}`);
    expect(check.error).toBe("invalid_client");
    return check.description;
  }

  describe("with fetches from this machine allowed (the instance setting tests and development use)", () => {
    beforeAll(() => {
      env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES = true;
    });
    // afterEach turns it off after each test; turn it on again before each.
    const allow = () => {
      env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES = true;
    };

    it("stores the client from its document, public and limited to mcp, and marks it unverified with the document's host", async () => {
      allow();
      const url = documentUrl();
      serveJson({ client_id: url, client_name: "Example Agent", redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] }, { "Cache-Control": "max-age=120" });
      const before = Date.now();
      expect(await authorizeWith(url, { scope: "api" })).toMatchObject({ kind: "valid", request: { scopes: ["mcp"], redirectUri } });
      const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, url));
      expect(row).toMatchObject({
        name: "[Unverified Dynamic Application] Example Agent",
        redirectUris: [redirectUri],
        scopes: ["mcp"],
        confidential: false,
        trusted: false,
        registration: "metadata_document",
      });
      expect(row!.metadataExpiresAt!.getTime() - row!.metadataFetchedAt!.getTime()).toBe(120_000);
      expect(row!.metadataFetchedAt!.getTime()).toBeGreaterThanOrEqual(before - 1);

      const consent = await prepareConsent(userContext(fixture.db, await createTestUser(fixture.db)), {
        client_id: url,
        redirect_uri: redirectUri,
        response_type: "code",
        code_challenge: testS256Challenge,
        code_challenge_method: "S256",
      });
      expect(consent).toMatchObject({
        kind: "consent",
        screen: {
          application: { name: "[Unverified Dynamic Application] Example Agent" },
          redirectTarget: "127.0.0.1:7777",
          unverified: { kind: "metadata_document", documentHost: new URL(origin).host },
        },
      });
    });

    it("reads the stored copy while it is fresh and fetches again once it expired", async () => {
      allow();
      const url = documentUrl();
      serveJson({ client_id: url, redirect_uris: [redirectUri] }, { "Cache-Control": "max-age=300" });
      const before = hits;
      await authorizeWith(url);
      await authorizeWith(url);
      expect(hits - before).toBe(1);
      const [row] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, url));
      // Named after the document's host when it names no client.
      expect(row!.name).toBe(`[Unverified Dynamic Application] ${new URL(origin).host}`);

      await fixture.db.update(oauthApplications).set({ metadataExpiresAt: new Date(Date.now() - 1000) }).where(eq(oauthApplications.id, row!.id));
      serveJson({ client_id: url, client_name: "Renamed", redirect_uris: ["http://127.0.0.1:7777/other"] });
      expect(await authorizeWith(url)).toEqual({ kind: "error_page", error: "invalid_redirect_uri", description: "The redirect URI included is not valid." });
      expect(hits - before).toBe(2);
      const [refreshed] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, url));
      expect(refreshed).toMatchObject({ id: row!.id, name: "[Unverified Dynamic Application] Renamed", redirectUris: ["http://127.0.0.1:7777/other"] });
    });

    it("issues an mcp token to the client by its URL, as a public client with PKCE", async () => {
      allow();
      const url = documentUrl();
      serveJson({ client_id: url, client_name: "Token Client", redirect_uris: [redirectUri] });
      await authorizeWith(url);
      const [application] = await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, url));
      const { code } = await authorizeCode(fixture.db, await createTestUser(fixture.db), application!, {
        redirect_uri: redirectUri,
        code_challenge: testS256Challenge,
        code_challenge_method: "S256",
      });
      const body = await token(fixture.db, { grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: url, code_verifier: testVerifier });
      expect(body).toMatchObject({ token_type: "Bearer", scope: "mcp", expires_in: 7200 });
    });

    it("refuses documents that do not describe the client at that URL, on the error page and without storing anything", async () => {
      allow();
      const cases: [unknown, string][] = [
        [{ client_id: "https://elsewhere.example/client.json", redirect_uris: [redirectUri] }, "The metadata document's client_id is not the URL it was fetched from."],
        [{ redirect_uris: [redirectUri] }, "The metadata document's client_id is invalid."],
        [{ client_id: "@self", redirect_uris: [] }, "The metadata document's redirect_uris is invalid."],
        [{ client_id: "@self", redirect_uris: ["javascript:alert(1)"] }, 'The metadata document\'s redirect URI "javascript:alert(1)" is forbidden by the server.'],
        [{ client_id: "@self", redirect_uris: [redirectUri], client_secret: "s" }, "The metadata document must not contain a client secret."],
        [
          { client_id: "@self", redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_basic" },
          "The metadata document's token_endpoint_auth_method must be none: only public clients are supported.",
        ],
        [{ client_id: "@self", redirect_uris: [redirectUri], grant_types: ["client_credentials"] }, "The metadata document's grant_types must include authorization_code."],
        [{ client_id: "@self", redirect_uris: [redirectUri], client_name: "n".repeat(200) }, "The metadata document's client_name is too long."],
        ["[1, 2]", "The metadata document's document is invalid."],
      ];
      for (const [document, reason] of cases) {
        const url = documentUrl();
        const body = typeof document === "string" ? document : JSON.stringify(document).replace('"@self"', JSON.stringify(url));
        handler = (_request, response) => response.writeHead(200, { "Content-Type": "application/json" }).end(body);
        expect(await refusedWith(url), JSON.stringify(document)).toBe(`The client's metadata document cannot be used. ${reason}`);
        expect(await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, url))).toEqual([]);
      }
    });

    it("does not follow redirects, and refuses errors, non-JSON and documents over 5 KB", async () => {
      allow();
      handler = (_request, response) => response.writeHead(302, { Location: "http://127.0.0.1:1/elsewhere" }).end();
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The client_id URL answered with a redirect, which is not followed.");
      handler = (_request, response) => response.writeHead(404).end("missing");
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The client_id URL answered with status 404.");
      handler = (_request, response) => response.writeHead(200).end("<html>");
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The metadata document is not valid JSON.");
      handler = (_request, response) => response.writeHead(200).end(JSON.stringify({ client_id: "x", padding: "x".repeat(6000) }));
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The metadata document is larger than 5120 bytes.");
      // Without a Content-Length: counted as it arrives.
      handler = (_request, response) => {
        response.writeHead(200);
        response.write("x".repeat(4000));
        response.end("x".repeat(4000));
      };
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The metadata document is larger than 5120 bytes.");
    });

    it("gives up on a server that does not answer within 5 seconds", async () => {
      allow();
      handler = () => undefined;
      const started = Date.now();
      expect(await refusedWith(documentUrl())).toBe("The client's metadata document cannot be used. The client_id URL did not answer within 5 seconds.");
      expect(Date.now() - started).toBeLessThan(8000);
    });

    it("counts each new client against the address's registrations, five an hour, and keeps serving known ones", async () => {
      allow();
      const ctx = userContext(fixture.db, await createTestUser(fixture.db));
      // An address of its own in each database's run: the counters are the process's.
      const address = `203.0.113.${documentCounter}`;
      const check = (clientId: string) =>
        checkAuthorizationRequest(
          ctx,
          { client_id: clientId, redirect_uri: redirectUri, response_type: "code", code_challenge: testS256Challenge, code_challenge_method: "S256" },
          address,
        );
      handler = (incoming, response) => response.writeHead(200).end(JSON.stringify({ client_id: `${origin}${incoming.url}`, redirect_uris: [redirectUri] }));
      const urls = Array.from({ length: 6 }, () => documentUrl());
      for (const url of urls.slice(0, 5)) expect((await check(url)).kind).toBe("valid");
      const before = hits;
      const refused = await check(urls[5]!);
      expect(refused).toEqual({
        kind: "error_page",
        error: "temporarily_unavailable",
        description: expect.stringMatching(/^Too many new clients from your address\. Retry after \d+ seconds\.$/),
      });
      // Refused before fetching, and nothing stored.
      expect(hits).toBe(before);
      expect(await fixture.db.select().from(oauthApplications).where(eq(oauthApplications.uid, urls[5]!))).toEqual([]);
      // A client already known is no new registration.
      expect((await check(urls[0]!)).kind).toBe("valid");
    });

    it("refuses client_id URLs the draft rules out", async () => {
      allow();
      expect(await refusedWith(`${origin}/`)).toBe("The client's metadata document cannot be used. The client_id URL must have a path.");
      expect(await refusedWith(`${origin}/a/../b`)).toBe("The client's metadata document cannot be used. The client_id URL must not contain dot segments.");
      expect(await refusedWith(`http://user:pw@127.0.0.1:1/client`)).toBe("The client's metadata document cannot be used. The client_id URL must not contain credentials.");
      expect(await refusedWith(`${origin}/client#x`)).toBe("The client's metadata document cannot be used. The client_id URL must not contain a fragment.");
      expect(await refusedWith("http://127.0.0.1:80/client")).toBe("The client's metadata document cannot be used. The client_id URL is not in normalised form.");
    });
  });

  describe("as in production", () => {
    it("never fetches from loopback, private or link-local addresses, however the name resolves, and reads http client_ids as unknown clients", async () => {
      const before = hits;
      const port = new URL(origin).port;
      for (const url of [`https://127.0.0.1:${port}/client.json`, `https://localhost:${port}/client.json`, "https://169.254.169.254/latest/meta-data", "https://[::1]/client"]) {
        expect(await refusedWith(url), url).toBe(
          "The client's metadata document cannot be used. The client_id URL's host resolves to an address this server does not fetch from.",
        );
      }
      expect(hits).toBe(before);
      expect(await authorizeWith(`${origin}/client.json`)).toMatchObject({ kind: "error_page", error: "invalid_client" });
      expect(hits).toBe(before);
    });
  });
});
