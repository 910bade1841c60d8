import type { Answer } from "@/lib/http/answer";

/**
 * OAuth errors as they go on the wire (RFC 6749 §5.2): an `error` code, a human `error_description` and an HTTP
 * status. Protocol steps throw them; `renderOAuthError` is the one place they become answers.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    /** Extra members of the JSON body (e.g. `state`). */
    readonly extra: Record<string, string> = {},
  ) {
    super(description);
  }

  body(): Record<string, string> {
    return { error: this.error, error_description: this.description, ...this.extra };
  }
}

const descriptions = {
  invalid_request:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unauthorized_client: "The client is not authorized to perform this request using this method.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  access_denied: "The resource owner or authorization server denied the request.",
  unsupported_response_type: "The authorization server does not support this response type.",
  invalid_redirect_uri: "The redirect URI included is not valid.",
  authorization_pending: "The authorization request is still pending as the end user hasn't yet completed the user-interaction steps.",
  slow_down: "The client is polling too often; wait at least the interval between requests.",
  expired_token: "The device code has expired; start a new device authorization.",
  invalid_token: "The access token is invalid",
  // RFC 8707 §2.
  invalid_target: "The requested resource is invalid, missing, unknown, or malformed.",
  // RFC 7591 §3.2.2.
  invalid_client_metadata: "The value of one of the client metadata fields is invalid.",
  // GitLab's, for the authorize page: self-registered clients must prove possession with PKCE, and only with S256.
  pkce_required_for_dynamic_applications:
    "PKCE is required for dynamically registered applications: send a code_challenge with code_challenge_method S256.",
  invalid_code_challenge_method: "The code_challenge_method must be S256 for dynamically registered applications.",
  temporarily_unavailable: "The authorization server is temporarily unable to handle the request.",
  // GitLab's own, for the authorize page only: its `verify_confirmed_email!` shows it instead of the consent screen.
  unconfirmed_email: "Verify the email address in your account profile before you sign in.",
} as const;

export type OAuthErrorCode = keyof typeof descriptions;

export function invalidRequest(description: string = descriptions.invalid_request): OAuthError {
  return new OAuthError("invalid_request", description);
}

export function missingParameter(name: string): OAuthError {
  return invalidRequest(`Missing required parameter: ${name}.`);
}

/** 401, as client authentication failures are (RFC 6749 §5.2). */
export function invalidClient(): OAuthError {
  return new OAuthError("invalid_client", descriptions.invalid_client, 401);
}

export function invalidGrant(): OAuthError {
  return new OAuthError("invalid_grant", descriptions.invalid_grant);
}

export function unauthorizedClient(description: string = descriptions.unauthorized_client): OAuthError {
  return new OAuthError("unauthorized_client", description, 401);
}

export function oauthError(code: Exclude<OAuthErrorCode, "invalid_client" | "unauthorized_client">): OAuthError {
  return new OAuthError(code, descriptions[code]);
}

export function defaultDescription(code: OAuthErrorCode): string {
  return descriptions[code];
}

/**
 * The JSON error answer with the headers RFC 6749 and RFC 6750 ask for. `WWW-Authenticate` is a challenge: it goes with
 * 401s (RFC 6749 §5.2) and `insufficient_scope` (RFC 6750 §3.1) only. On a 400, clients (openid-client among them)
 * read it as a challenge to re-authenticate and never see the `error` of the body.
 */
export function renderOAuthError(error: OAuthError, extraHeaders: Record<string, string> = {}): Answer {
  const challenge: Record<string, string> =
    error.status === 401 || error.error === "insufficient_scope"
      ? { "WWW-Authenticate": `Bearer realm="GitLab", error="${error.error}", error_description="${error.description.replace(/"/g, "'")}"` }
      : {};
  return {
    status: error.status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      ...challenge,
      ...extraHeaders,
    },
    body: JSON.stringify(error.body()),
  };
}
