import { beforeAll, expect } from "vitest";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import type { OAuthApplicationRow, UserRow } from "@/lib/db/schema";
import { approveAuthorization, checkAuthorizationRequest } from "@/lib/oauth/authorize";
import { createApplicationAsAdmin, updateApplicationSettings, type ApplicationWithSecret } from "@/lib/oauth/applications";
import { OAuthError } from "@/lib/oauth/errors";
import { exchangeToken } from "@/lib/oauth/token";
import { databaseForSuite } from "./databases";
import { createTestUser, uniqueSuffix, userContext } from "./fixtures";

export const testRedirectUri = "https://client.example.com/callback";
export const otherRedirectUri = "http://127.0.0.1:8123/cb";

/** A well-formed PKCE verifier (RFC 7636 §4.1) and its S256 challenge. */
export const testVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
export const testS256Challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

export interface OAuthFixture {
  db: Database;
  admin: UserRow;
}

export async function oauthFixture(db: Database): Promise<OAuthFixture> {
  return { db, admin: await createTestUser(db, { isAdmin: true }) };
}

/**
 * For a `describe` block: opens a fresh database with `open` before its tests (with an admin to register applications)
 * and closes it after them. The returned fixture is filled in by `beforeAll`, so read it inside tests, not while the
 * block is being collected.
 */
export function oauthFixtureForSuite(open: () => Promise<DatabaseHandle>): OAuthFixture {
  const handle = databaseForSuite(open);
  let admin: UserRow | undefined;
  beforeAll(async () => {
    ({ admin } = await oauthFixture(handle.db));
  });
  return {
    get db() {
      return handle.db;
    },
    get admin() {
      if (!admin) throw new Error("the OAuth fixture is only ready inside tests and hooks, after beforeAll");
      return admin;
    },
  };
}

/**
 * GitLab's (Doorkeeper's) invalid_grant error body, word for word. Written out here rather than taken from the code
 * under test, so a test fails if the wire text changes.
 */
export const invalidGrantBody = {
  error: "invalid_grant",
  error_description:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
};

/** An instance application registered by an admin (confidential unless told otherwise). */
export async function registerApplication(
  fixture: OAuthFixture,
  options: { scopes?: string[]; confidential?: boolean; trusted?: boolean; implicit?: boolean; redirectUri?: string } = {},
): Promise<ApplicationWithSecret> {
  const ctx = userContext(fixture.db, fixture.admin);
  const created = await createApplicationAsAdmin(ctx, {
    name: `App ${uniqueSuffix()}`,
    redirectUri: options.redirectUri ?? `${testRedirectUri}\n${otherRedirectUri}`,
    scopes: options.scopes ?? ["api", "read_user", "openid", "profile", "email"],
    confidential: options.confidential,
  });
  if (options.trusted || options.implicit) {
    const application = await updateApplicationSettings(ctx, created.application.id, {
      trusted: options.trusted,
      implicitGrantEnabled: options.implicit,
    });
    return { application, secret: created.secret };
  }
  return created;
}

/** A POST to the token endpoint; `basic` sends the client credentials in the Authorization header. */
export function formRequest(path: string, params: Record<string, string>, options: { basic?: [string, string]; bearer?: string } = {}): Request {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (options.basic) {
    const [id, secret] = options.basic.map((part) => encodeURIComponent(part));
    headers.Authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  }
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  return new Request(`http://localhost${path}`, { method: "POST", headers, body: new URLSearchParams(params).toString() });
}

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
  created_at: number;
  id_token?: string;
}

/** Calls the token endpoint's verb the way the route does. */
export async function token(
  db: Database,
  params: Record<string, string>,
  options: { basic?: [string, string]; now?: Date } = {},
): Promise<TokenBody> {
  const request = formRequest("/oauth/token", params, options);
  return (await exchangeToken(db, request, params, options.now ?? new Date())) as unknown as TokenBody;
}

/** The OAuthError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function oauthFailure(promise: Promise<unknown>): Promise<OAuthError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error("expected an OAuth error, but the call succeeded");
}

export async function expectOAuthError(promise: Promise<unknown>, error: string, status = 400): Promise<OAuthError> {
  const failure = await oauthFailure(promise);
  expect({ error: failure.error, status: failure.status }).toEqual({ error, status });
  return failure;
}

/** Runs the authorize checks and approves as `user`; returns the code and the full redirect. */
export async function authorizeCode(
  db: Database,
  user: UserRow,
  application: OAuthApplicationRow,
  params: Record<string, string> = {},
  now = new Date(),
): Promise<{ code: string; location: URL }> {
  const check = await checkAuthorizationRequest(userContext(db, user), {
    client_id: application.uid,
    redirect_uri: testRedirectUri,
    response_type: "code",
    state: "xyz",
    ...params,
  });
  if (check.kind !== "valid") throw new Error(`authorization request refused: ${JSON.stringify(check)}`);
  const location = new URL(await approveAuthorization(db, user, check.request, now));
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code in ${location.toString()}`);
  return { code, location };
}
