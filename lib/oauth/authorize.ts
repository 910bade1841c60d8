import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { oauthAuthorizationCodes, oauthConsents, type OAuthApplicationRow, type UserRow } from "@/lib/db/schema";
import { isKnownScope } from "@/lib/api/scopes";
import { defaultDescription, type OAuthErrorCode } from "./errors";
import { issuer } from "./id-token";
import { isValidCodeVerifier, type CodeChallengeMethod } from "./pkce";
import { parseScopeString } from "./scopes";
import { accessTokenLifetimeSeconds, createGrant, generateOpaqueToken, issueTokens, tokenDigest } from "./tokens";
import { findApplicationByUid } from "./applications";
import { actingUser, type Ctx } from "@/lib/context";
import { UnauthorizedError } from "@/lib/errors";
import { findUserById } from "@/lib/users/users";
import { scopeDescriptions } from "./scopes";

export const authorizationCodeLifetimeSeconds = 600;

/**
 * What the consent form's CSRF token is bound to: the form itself (client, redirect URI, response type, scopes), so a
 * token taken from one consent screen cannot approve another.
 */
export function consentCsrfPurpose(params: Record<string, string | undefined>): string {
  return ["oauth-consent", params.client_id, params.redirect_uri, params.response_type, params.scope].map((part) => part ?? "").join("\n");
}

/** A request that passed every check: what the consent screen shows and what approval issues. */
export interface AuthorizationRequest {
  application: OAuthApplicationRow;
  redirectUri: string;
  responseType: "code" | "token";
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: CodeChallengeMethod;
}

export type AuthorizationCheck =
  | { kind: "valid"; request: AuthorizationRequest }
  /** The client or redirect URI cannot be trusted: tell the person, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: "error_page"; error: OAuthErrorCode; description: string }
  /** Anything else goes back to the client's (verified) redirect URI. */
  | { kind: "redirect"; location: string };

type Params = Record<string, string | undefined>;

/**
 * The checks of `GET /oauth/authorize`, in order:
 * 1. loadClient: `client_id` names a registered application;
 * 2. checkRedirectUri: `redirect_uri` equals one of its registered URIs exactly;
 * 3. checkResponseType: `code`, or `token` when an admin enabled the implicit grant for this application;
 * 4. checkScope: well-formed, known and within the application's scopes (default `api`);
 * 5. checkPkce: a challenge has an explicit method and a well-formed value; public clients must send one.
 */
export async function checkAuthorizationRequest(db: Database, params: Params): Promise<AuthorizationCheck> {
  if (!params.client_id) return errorPage("invalid_request", "Missing required parameter: client_id.");
  const application = await findApplicationByUid({ db }, params.client_id);
  if (!application) return errorPage("invalid_client");
  if (!params.redirect_uri || !application.redirectUris.includes(params.redirect_uri)) return errorPage("invalid_redirect_uri");
  const redirectUri = params.redirect_uri;

  const responseType = params.response_type;
  const inFragment = responseType === "token";
  const fail = (error: OAuthErrorCode, description: string = defaultDescription(error)): AuthorizationCheck => ({
    kind: "redirect",
    location: buildRedirect(redirectUri, { error, error_description: description, state: params.state, iss: issuer() }, inFragment),
  });

  if (!responseType) return fail("invalid_request", "Missing required parameter: response_type.");
  if (responseType !== "code" && !(responseType === "token" && application.implicitGrantEnabled)) {
    return fail("unsupported_response_type");
  }

  const scopes = params.scope === undefined ? application.scopes.filter((scope) => scope === "api") : parseScopeString(params.scope);
  if (!scopes || scopes.length === 0) return fail("invalid_scope");
  if (!scopes.every((scope) => isKnownScope(scope) && application.scopes.includes(scope))) return fail("invalid_scope");

  let codeChallengeMethod: CodeChallengeMethod | undefined;
  if (responseType === "code") {
    if (params.code_challenge !== undefined) {
      if (params.code_challenge_method !== "S256" && params.code_challenge_method !== "plain") {
        return fail("invalid_request", "The code_challenge_method must be one of plain, S256.");
      }
      if (!isValidCodeVerifier(params.code_challenge)) return fail("invalid_request", "The code_challenge is malformed.");
      codeChallengeMethod = params.code_challenge_method;
    } else if (!application.confidential) {
      return fail("invalid_request", "PKCE is required for public clients: send code_challenge and code_challenge_method.");
    }
  }

  return {
    kind: "valid",
    request: {
      application,
      redirectUri,
      responseType,
      scopes,
      state: params.state,
      nonce: params.nonce,
      codeChallenge: responseType === "code" ? params.code_challenge : undefined,
      codeChallengeMethod,
    },
  };
}

function errorPage(error: OAuthErrorCode, description: string = defaultDescription(error)): AuthorizationCheck {
  return { kind: "error_page", error, description };
}

/** Adds parameters to the redirect URI's query (or, for the implicit grant, its fragment), keeping its own query. */
export function buildRedirect(redirectUri: string, values: Record<string, string | undefined>, inFragment: boolean): string {
  const url = new URL(redirectUri);
  const target = inFragment ? new URLSearchParams() : url.searchParams;
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== "") target.set(name, value);
  if (inFragment) url.hash = target.toString();
  return url.toString();
}

/** Whether the person may skip the consent screen: trusted application, or every scope already approved. */
export async function isConsentRemembered(db: Database, user: UserRow, request: AuthorizationRequest): Promise<boolean> {
  if (request.application.trusted) return true;
  const [consent] = await db
    .select()
    .from(oauthConsents)
    .where(and(eq(oauthConsents.userId, user.id), eq(oauthConsents.applicationId, request.application.id)));
  return consent !== undefined && request.scopes.every((scope) => consent.scopes.includes(scope));
}

/**
 * Approval: remembers the consent (adding to the scopes approved before), then issues a code (or, for the implicit
 * grant, an access token without a refresh token) and returns where to send the browser, with `state` and `iss`
 * (RFC 9207).
 */
export async function approveAuthorization(db: Database, user: UserRow, request: AuthorizationRequest, now: Date): Promise<string> {
  return db.transaction(async (tx) => {
    await tx
      .insert(oauthConsents)
      .values({ userId: user.id, applicationId: request.application.id, scopes: request.scopes, createdAt: now })
      .onConflictDoUpdate({
        target: [oauthConsents.userId, oauthConsents.applicationId],
        // Approving a narrower request (or one remembered silently) must not shrink what was approved before.
        set: {
          scopes: sql`array(select distinct scope from unnest(${oauthConsents.scopes} || excluded.scopes) as approved(scope) order by scope)`,
          updatedAt: now,
        },
      });
    const grant = await createGrant(tx, {
      applicationId: request.application.id,
      userId: user.id,
      scopes: request.scopes,
      authTime: user.lastSignInAt,
      now,
    });
    if (request.responseType === "token") {
      const issued = await issueTokens(tx, grant, { scopes: request.scopes, now, withRefreshToken: false });
      return buildRedirect(
        request.redirectUri,
        {
          access_token: issued.accessToken,
          token_type: "Bearer",
          expires_in: String(accessTokenLifetimeSeconds),
          scope: request.scopes.join(" "),
          state: request.state,
          iss: issuer(),
        },
        true,
      );
    }
    const code = generateOpaqueToken();
    await tx.insert(oauthAuthorizationCodes).values({
      codeDigest: tokenDigest(code),
      grantId: grant.id,
      applicationId: request.application.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge ?? null,
      codeChallengeMethod: request.codeChallengeMethod ?? null,
      nonce: request.nonce ?? null,
      expiresAt: new Date(now.getTime() + authorizationCodeLifetimeSeconds * 1000),
      createdAt: now,
    });
    return buildRedirect(request.redirectUri, { code, state: request.state, iss: issuer() }, false);
  });
}

/** Denial: back to the client with `access_denied`. */
export function denyAuthorization(request: AuthorizationRequest): string {
  return buildRedirect(
    request.redirectUri,
    { error: "access_denied", error_description: defaultDescription("access_denied"), state: request.state, iss: issuer() },
    request.responseType === "token",
  );
}

export type AuthorizationStep =
  | { kind: "error_page"; error: OAuthErrorCode; description: string }
  | { kind: "redirect"; location: string }
  | { kind: "sign_in" }
  | { kind: "consent"; request: AuthorizationRequest };

/**
 * `GET /oauth/authorize`: checks the request, then sends the visitor to sign in, straight back to the client when
 * they already consented (or the application is trusted), or to the consent screen.
 */
export async function beginAuthorization(db: Database, user: UserRow | null, params: Params, now: Date): Promise<AuthorizationStep> {
  const check = await checkAuthorizationRequest(db, params);
  if (check.kind !== "valid") return check;
  if (!user) return { kind: "sign_in" };
  if (await isConsentRemembered(db, user, check.request)) {
    return { kind: "redirect", location: await approveAuthorization(db, user, check.request, now) };
  }
  return { kind: "consent", request: check.request };
}

/**
 * The consent form's answer. The form's fields are re-checked from scratch: nothing in it is trusted except what
 * passes the same checks as the original request.
 */
export async function decideAuthorization(
  db: Database,
  user: UserRow,
  params: Params,
  decision: "approve" | "deny",
  now: Date,
): Promise<AuthorizationCheck> {
  const check = await checkAuthorizationRequest(db, params);
  if (check.kind !== "valid") return check;
  const location = decision === "approve" ? await approveAuthorization(db, user, check.request, now) : denyAuthorization(check.request);
  return { kind: "redirect", location };
}

/** The authorize parameters the consent form sends back, in GitLab's order. */
export const authorizeParameterNames = [
  "client_id",
  "redirect_uri",
  "state",
  "response_type",
  "scope",
  "nonce",
  "code_challenge",
  "code_challenge_method",
] as const;

/** Everything the consent screen shows, and the fields its form posts back. */
export interface ConsentScreen {
  application: { name: string };
  /** The person who registered the application; null for instance-wide (admin-created) applications. */
  owner: { name: string; username: string } | null;
  user: { name: string; username: string; isAdmin: boolean };
  scopes: { scope: string; title: string; description: string }[];
  /** Where the browser goes after the decision: the redirect URI's host, or its scheme for native apps. */
  redirectTarget: string;
  /** `response_type=token`: the deprecated implicit grant. */
  implicitGrant: boolean;
  /** The request's own parameters (only those present), to post back with the decision. */
  fields: Record<string, string>;
}

export type ConsentStep =
  | { kind: "error_page"; error: OAuthErrorCode; description: string }
  | { kind: "redirect"; location: string }
  | { kind: "consent"; screen: ConsentScreen };

/**
 * The consent page (`/oauth/authorize/consent`): re-checks the request exactly as `GET /oauth/authorize` does, since
 * anyone can open this page with any query, then gathers what the signed-in person needs to decide.
 */
export async function prepareConsent(ctx: Ctx, params: Params): Promise<ConsentStep> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const check = await checkAuthorizationRequest(ctx.db, params);
  if (check.kind !== "valid") return check;
  const { application, redirectUri, responseType, scopes } = check.request;
  const owner = application.ownerId === null ? undefined : await findUserById(ctx.db, application.ownerId);
  const redirectUrl = new URL(redirectUri);
  const fields: Record<string, string> = {};
  for (const name of authorizeParameterNames) {
    const value = params[name];
    if (value !== undefined) fields[name] = value;
  }
  return {
    kind: "consent",
    screen: {
      application: { name: application.name },
      owner: owner ? { name: owner.name, username: owner.username } : null,
      user: { name: user.name, username: user.username, isAdmin: user.isAdmin },
      scopes: scopes.map((scope) => ({ scope, ...(isKnownScope(scope) ? scopeDescriptions[scope] : { title: scope, description: "" }) })),
      redirectTarget: redirectUrl.host || redirectUrl.protocol.replace(/:$/, ""),
      implicitGrant: responseType === "token",
      fields,
    },
  };
}
