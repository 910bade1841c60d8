import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import { oauthApplications, oauthAuthorizationCodes, oauthConsents, type OAuthApplicationRow, type UserRow } from "@/lib/db/schema";
import { isKnownScope, mcpScope } from "@/lib/api/scopes";
import { defaultDescription, type OAuthErrorCode } from "./errors";
import { issuer } from "./id-token";
import { isAnswerableChallenge, type CodeChallengeMethod } from "./pkce";
import { isRegisteredRedirectUri } from "./redirect-uri";
import { parseScopeString } from "./scopes";
import { accessTokenLifetimeSeconds, createGrant, generateOpaqueToken, issueTokens, tokenDigest } from "./tokens";
import { findApplicationByUid } from "./applications";
import { isMetadataDocumentClientId, MetadataDocumentError, metadataDocumentClient } from "./client-metadata-document";
import { resourceProblem } from "./resource";
import { actingUser, type Ctx } from "@/lib/context";
import { instanceSettingsOf } from "@/lib/instance/settings";
import { currentUser, findUserById } from "@/lib/users/users";
import { unstorableParameter } from "./http";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { env } from "@/lib/env";
import { scopeDescriptions } from "./scopes";

export const authorizationCodeLifetimeSeconds = 600;

/**
 * What the consent form's CSRF token is bound to: the form itself (client, redirect URI, response type, scopes, the
 * resource the tokens are for), so a token taken from one consent screen cannot approve another.
 */
export function consentCsrfPurpose(params: AuthorizationParams): string {
  const parts = [params.client_id, params.redirect_uri, params.response_type, params.scope, params.resource];
  // A repeated field binds to nothing: no consent screen was ever shown for it.
  return ["oauth-consent", ...parts.map((part) => (typeof part === "string" ? part : ""))].join("\n");
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
  /** The `iss` every answer to the client carries (RFC 9207), when the instance's setting turns it on. */
  responseIssuer?: string;
  /** RFC 8707: the resource server the tokens are for (their audience); null when the client named none. */
  resource: string | null;
}

/** What a request that cannot go on becomes, whichever check stopped it. */
export type AuthorizationStop =
  /** The client, its redirect URI or the request itself cannot be trusted: tell the person, never redirect. */
  | { kind: "error_page"; error: OAuthErrorCode; description: string }
  /** A signed-in person's request with a problem the client should hear of, at its (verified) redirect URI. */
  | { kind: "redirect"; location: string }
  /** Nobody is signed in: that comes before anything else about the request is looked at. */
  | { kind: "sign_in" };

export type AuthorizationCheck = { kind: "valid"; request: AuthorizationRequest } | AuthorizationStop;

/** Parameters as read from a query or form: repeated names are arrays until the first check refuses them. */
export type AuthorizationParams = Record<string, string | string[] | undefined>;
type Params = Record<string, string | undefined>;

/** Thrown by a check to end the request with its outcome; never leaves this module. */
class Stopped {
  constructor(readonly outcome: AuthorizationStop) {}
}

/**
 * The checks of an authorization request (`GET /oauth/authorize`, the consent page and its form), in order. Nothing
 * is sent back to the client before someone has signed in: otherwise anyone who registers an application with a
 * redirect URI of their choosing could use this server to bounce visitors there (RFC 9700 §4.11.2).
 */
export async function checkAuthorizationRequest(ctx: Ctx, raw: AuthorizationParams, clientAddress: string | null = null): Promise<AuthorizationCheck> {
  try {
    const { params, application, redirectUri } = await trustworthyClient(ctx.db, raw, clientAddress);
    requireSignedIn(ctx);
    requireConfirmedEmail(ctx);
    const responseIssuer = await authorizationResponseIssuer(ctx.db);
    const backToClient = clientErrors(redirectUri, params, responseIssuer);
    const responseType = supportedResponseType(application, params, backToClient);
    const resource = resourceIndicator(params, backToClient);
    const scopes = allowedScopes(application, params, resource, backToClient);
    const pkce = proofKey(application, params, responseType, backToClient);
    return {
      kind: "valid",
      request: { application, redirectUri, responseType, scopes, state: params.state, nonce: params.nonce, ...pkce, resource, responseIssuer },
    };
  } catch (error) {
    if (error instanceof Stopped) return error.outcome;
    throw error;
  }
}

/**
 * What makes an authorization request impossible to send back to its client, before anything about the visitor is
 * known: a malformed query, an unknown client or an unregistered redirect URI (the 400 error page). Null when the
 * client and redirect URI are trustworthy. The production proxy asks this first, so the page can be answered with
 * status 400 inside the site's layout.
 */
export async function untrustworthyAuthorizationRequest(
  db: Database,
  raw: AuthorizationParams,
  clientAddress: string | null,
): Promise<{ error: OAuthErrorCode; description: string } | null> {
  try {
    await trustworthyClient(db, raw, clientAddress);
    return null;
  } catch (error) {
    if (error instanceof Stopped && error.outcome.kind === "error_page") return { error: error.outcome.error, description: error.outcome.description };
    throw error;
  }
}

/** `clientAddress`: who sent the request, counted when its client_id makes us store a new metadata-document client. */
async function trustworthyClient(db: Database, raw: AuthorizationParams, clientAddress: string | null) {
  const params = wellFormedParameters(raw);
  const application = await registeredClient(db, params, clientAddress);
  return { params, application, redirectUri: registeredRedirectUri(application, params) };
}

/** Error page: a parameter given twice (RFC 6749 §3.1), or holding what no check can look up (NUL characters). */
function wellFormedParameters(raw: AuthorizationParams): Params {
  const repeated = Object.entries(raw).find(([, value]) => Array.isArray(value));
  if (repeated) throw stopWithPage("invalid_request", `Parameter ${repeated[0]} was given more than once.`);
  const unstorable = unstorableParameter(raw);
  if (unstorable) throw stopWithPage("invalid_request", unstorable);
  return raw as Params;
}

/**
 * Error page: `client_id` must name a registered application, or be the URL of a usable client ID metadata document
 * (fetched, or read from the stored copy while it is fresh).
 */
async function registeredClient(db: Database, params: Params, clientAddress: string | null): Promise<OAuthApplicationRow> {
  if (!params.client_id) throw stopWithPage("invalid_request", "Missing required parameter: client_id.");
  if (isMetadataDocumentClientId(params.client_id)) {
    try {
      return await metadataDocumentClient(db, params.client_id, new Date(), clientAddress);
    } catch (error) {
      if (error instanceof MetadataDocumentError) throw stopWithPage("invalid_client", `The client's metadata document cannot be used. ${error.message}`);
      if (error instanceof RateLimitExceeded) {
        throw stopWithPage("temporarily_unavailable", `Too many new clients from your address. Retry after ${error.retryAfterSeconds()} seconds.`);
      }
      throw error;
    }
  }
  const application = await findApplicationByUid({ db }, params.client_id);
  if (!application) {
    // GitLab's explanation: an MCP client may still hold a client_id it registered when registration was on.
    if (!env.OAUTH_DYNAMIC_CLIENT_REGISTRATION) {
      throw stopWithPage(
        "invalid_client",
        "The OAuth client is not recognized. When dynamic client registration is disabled, new clients cannot register. Create an OAuth application and configure your MCP client with its client ID.",
      );
    }
    throw stopWithPage("invalid_client");
  }
  return application;
}

/**
 * Error page: `redirect_uri` must be one of the application's registered URIs (a loopback one on any port). The URI as
 * sent, port included, is where the answer goes and what the code is bound to.
 */
function registeredRedirectUri(application: OAuthApplicationRow, params: Params): string {
  if (!params.redirect_uri || !isRegisteredRedirectUri(params.redirect_uri, application.redirectUris)) throw stopWithPage("invalid_redirect_uri");
  return params.redirect_uri;
}

/** Sign-in page: an anonymous visitor signs in first, and learns nothing else about the request. */
function requireSignedIn(ctx: Ctx): void {
  if (!actingUser(ctx)) throw new Stopped({ kind: "sign_in" });
}

/** Error page: as GitLab's `verify_confirmed_email!`, an account whose address is unproven authorizes nothing. */
function requireConfirmedEmail(ctx: Ctx): void {
  if (!actingUser(ctx)!.confirmedAt) throw stopWithPage("unconfirmed_email");
}

type ClientErrors = (error: OAuthErrorCode, description?: string) => Stopped;

/**
 * Whether answers to the client carry `iss` (RFC 9207), and which. GitLab sends none, and relying parties configured
 * as their documentation says for GitLab (Auth.js, next-auth) refuse a response that carries one, since they were
 * given no issuer to compare it with; an admin turns it on for clients that want it (`application_settings`).
 */
async function authorizationResponseIssuer(db: Database): Promise<string | undefined> {
  return (await instanceSettingsOf(db)).oauthAuthorizationResponseIss ? issuer() : undefined;
}

/** From here on, problems go back to the client, with its `state` (and `iss` when it is on); in the fragment for `token`. */
function clientErrors(redirectUri: string, params: Params, responseIssuer: string | undefined): ClientErrors {
  const inFragment = params.response_type === "token";
  return (error, description = defaultDescription(error)) =>
    new Stopped({
      kind: "redirect",
      location: buildRedirect(redirectUri, { error, error_description: description, state: params.state, iss: responseIssuer }, inFragment),
    });
}

/** `code`, or `token` when an admin enabled the implicit grant for this application. */
function supportedResponseType(application: OAuthApplicationRow, params: Params, backToClient: ClientErrors): "code" | "token" {
  const responseType = params.response_type;
  if (!responseType) throw backToClient("invalid_request", "Missing required parameter: response_type.");
  if (responseType === "code" || (responseType === "token" && application.implicitGrantEnabled)) return responseType;
  throw backToClient("unsupported_response_type");
}

/**
 * Well-formed, known and within the application's scopes; `api` (when the application has it) if none are asked.
 * As GitLab: a request for its MCP server (a resource ending in `/api/v4/mcp`), and any request of a self-registered
 * application that may only have `mcp`, gets exactly `mcp`, whatever it asked for.
 */
function allowedScopes(application: OAuthApplicationRow, params: Params, resource: string | null, backToClient: ClientErrors): string[] {
  const onlyMcp =
    resource?.endsWith("/api/v4/mcp") ||
    (application.registration !== "manual" && application.scopes.length === 1 && application.scopes[0] === mcpScope);
  const scopes = onlyMcp
    ? [mcpScope]
    : params.scope === undefined
      ? application.scopes.filter((scope) => scope === "api")
      : parseScopeString(params.scope);
  if (!scopes || scopes.length === 0) throw backToClient("invalid_scope");
  if (!scopes.every((scope) => isKnownScope(scope) && application.scopes.includes(scope))) throw backToClient("invalid_scope");
  return scopes;
}

/** A code challenge has an explicit method and a value some verifier can answer; public clients must send one. */
function proofKey(
  application: OAuthApplicationRow,
  params: Params,
  responseType: "code" | "token",
  backToClient: ClientErrors,
): Pick<AuthorizationRequest, "codeChallenge" | "codeChallengeMethod"> {
  if (responseType !== "code") return {};
  // GitLab's rule for applications that registered themselves: anyone could have, so only PKCE with S256 binds the
  // code to the client that asked for it. An error page, as GitLab's: such a client's redirect URI is unverified.
  if (application.registration !== "manual") {
    if (!params.code_challenge) throw stopWithPage("pkce_required_for_dynamic_applications");
    if (params.code_challenge_method !== "S256") throw stopWithPage("invalid_code_challenge_method");
  }
  if (params.code_challenge === undefined) {
    if (!application.confidential) {
      throw backToClient("invalid_request", "PKCE is required for public clients: send code_challenge and code_challenge_method.");
    }
    return {};
  }
  if (params.code_challenge_method !== "S256" && params.code_challenge_method !== "plain") {
    throw backToClient("invalid_request", "The code_challenge_method must be one of plain, S256.");
  }
  if (!isAnswerableChallenge(params.code_challenge, params.code_challenge_method)) {
    throw backToClient("invalid_request", "The code_challenge is malformed.");
  }
  return { codeChallenge: params.code_challenge, codeChallengeMethod: params.code_challenge_method };
}

/** RFC 8707: an absolute URI without a fragment, or nothing; `invalid_target` back to the client otherwise. */
function resourceIndicator(params: Params, backToClient: ClientErrors): string | null {
  if (params.resource === undefined) return null;
  const problem = resourceProblem(params.resource);
  if (problem) throw backToClient("invalid_target", problem);
  return params.resource;
}

function stopWithPage(error: OAuthErrorCode, description: string = defaultDescription(error)): Stopped {
  return new Stopped({ kind: "error_page", error, description });
}

/** Adds parameters to the redirect URI's query (or, for the implicit grant, its fragment), keeping its own query. */
export function buildRedirect(redirectUri: string, values: Record<string, string | undefined>, inFragment: boolean): string {
  const url = new URL(redirectUri);
  const target = inFragment ? new URLSearchParams() : url.searchParams;
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== "") target.set(name, value);
  if (inFragment) url.hash = target.toString();
  return url.toString();
}

/**
 * Whether the person may skip the consent screen, as GitLab decides (`skip_authorization? || (matching_token? &&
 * confidential?)`): a trusted application, or a confidential one they approved every requested scope for. A public
 * client proves nothing with its client_id, which anyone can send, so approving it once approves nobody else's
 * request in its name: it always asks.
 */
export async function isConsentRemembered(db: Database, user: UserRow, request: AuthorizationRequest): Promise<boolean> {
  if (request.application.trusted) return true;
  if (!request.application.confidential) return false;
  const [consent] = await db
    .select()
    .from(oauthConsents)
    .where(and(eq(oauthConsents.userId, user.id), eq(oauthConsents.applicationId, request.application.id)));
  return consent !== undefined && request.scopes.every((scope) => consent.scopes.includes(scope));
}

/**
 * Approval: remembers the consent (adding to the scopes approved before), then issues a code (or, for the implicit
 * grant, an access token without a refresh token) and returns where to send the browser, with `state` (and `iss`
 * when it is on).
 */
export async function approveAuthorization(db: Database, user: UserRow, request: AuthorizationRequest, now: Date): Promise<string> {
  const location = await db.transaction(async (tx) => {
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
      resource: request.resource,
      now,
    });
    await stampAuthorizingUser(tx, request.application, user);
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
          iss: request.responseIssuer,
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
    return buildRedirect(request.redirectUri, { code, state: request.state, iss: request.responseIssuer }, false);
  });
  // The name may have been stamped (`stampAuthorizingUser`): this process's cached client must show it at once.
  if (request.application.registration === "dynamic") forgetTokenChecks(db, `application:${request.application.id}`);
  return location;
}

const authorizedByMarker = " — authorized by @";

/**
 * As GitLab: a dynamically registered application's name says who first authorized it, since registration is
 * anonymous and the name alone tells admins nothing about who is behind it. Once; metadata-document clients are
 * named by their document, which is read again when it expires, so they are left alone.
 */
async function stampAuthorizingUser(tx: Executor, application: OAuthApplicationRow, user: UserRow): Promise<void> {
  if (application.registration !== "dynamic" || application.name.includes(authorizedByMarker)) return;
  const username = user.username.replace(/[^A-Za-z0-9_.-]/g, "");
  await tx
    .update(oauthApplications)
    .set({ name: `${application.name}${authorizedByMarker}${username}` })
    .where(eq(oauthApplications.id, application.id));
}

/** Denial: back to the client with `access_denied`. */
export function denyAuthorization(request: AuthorizationRequest): string {
  return buildRedirect(
    request.redirectUri,
    { error: "access_denied", error_description: defaultDescription("access_denied"), state: request.state, iss: request.responseIssuer },
    request.responseType === "token",
  );
}

export type AuthorizationStep = AuthorizationStop | { kind: "consent"; request: AuthorizationRequest };

/**
 * `GET /oauth/authorize`: checks the request (which sends anonymous visitors to sign in), then sends the person
 * straight back to the client when consent is remembered (`isConsentRemembered`), or to the consent screen.
 */
export async function beginAuthorization(ctx: Ctx, params: AuthorizationParams, clientAddress: string | null = null): Promise<AuthorizationStep> {
  const check = await checkAuthorizationRequest(ctx, params, clientAddress);
  if (check.kind !== "valid") return check;
  const user = currentUser(ctx);
  if (await isConsentRemembered(ctx.db, user, check.request)) {
    return { kind: "redirect", location: await approveAuthorization(ctx.db, user, check.request, ctx.now) };
  }
  return { kind: "consent", request: check.request };
}

/**
 * The consent form's answer. The form's fields are re-checked from scratch: nothing in it is trusted except what
 * passes the same checks as the original request.
 */
export async function decideAuthorization(
  ctx: Ctx,
  params: AuthorizationParams,
  decision: "approve" | "deny",
  clientAddress: string | null = null,
): Promise<AuthorizationStop> {
  const check = await checkAuthorizationRequest(ctx, params, clientAddress);
  if (check.kind !== "valid") return check;
  const location =
    decision === "approve" ? await approveAuthorization(ctx.db, currentUser(ctx), check.request, ctx.now) : denyAuthorization(check.request);
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
  "resource",
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
  /**
   * Set when the application registered itself and no admin has marked it trusted: `dynamic` through
   * `POST /oauth/register`, `metadata_document` from the document at its client_id URL (whose host is named).
   */
  unverified: { kind: "dynamic" } | { kind: "metadata_document"; documentHost: string } | null;
  /** The request's own parameters (only those present), to post back with the decision. */
  fields: Record<string, string>;
}

export type ConsentStep = AuthorizationStop | { kind: "consent"; screen: ConsentScreen };

function unverifiedMarking(application: OAuthApplicationRow): ConsentScreen["unverified"] {
  if (application.trusted || application.registration === "manual") return null;
  if (application.registration === "dynamic") return { kind: "dynamic" };
  return { kind: "metadata_document", documentHost: new URL(application.uid).host };
}

/**
 * The consent page (`/oauth/authorize/consent`): re-checks the request exactly as `GET /oauth/authorize` does, in the
 * same order, since anyone can open this page with any query; then gathers what the signed-in person needs to decide.
 */
export async function prepareConsent(ctx: Ctx, params: AuthorizationParams, clientAddress: string | null = null): Promise<ConsentStep> {
  const check = await checkAuthorizationRequest(ctx, params, clientAddress);
  if (check.kind !== "valid") return check;
  const user = currentUser(ctx);
  const { application, redirectUri, responseType, scopes } = check.request;
  const owner = application.ownerId === null ? undefined : await findUserById(ctx.db, application.ownerId);
  const redirectUrl = new URL(redirectUri);
  const fields: Record<string, string> = {};
  for (const name of authorizeParameterNames) {
    const value = params[name];
    if (typeof value === "string") fields[name] = value;
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
      unverified: unverifiedMarking(application),
      fields,
    },
  };
}
