import "server-only";
import type { Database } from "@/lib/db";
import { env } from "@/lib/env";
import { instanceSettingsOf } from "@/lib/instance/settings";
import { applicationScopes } from "./scopes";

/**
 * OpenID Connect Discovery 1.0 / RFC 8414 metadata; served at both well-known paths. RFC 9207's flag is there only
 * when the instance sends `iss` in authorization responses (off by default, as GitLab advertises neither).
 */
export async function discoveryDocument(db: Database) {
  const base = env.EXTERNAL_URL;
  const { oauthAuthorizationResponseIss } = await instanceSettingsOf(db);
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    device_authorization_endpoint: `${base}/oauth/authorize_device`,
    // RFC 7591, for MCP clients that register themselves; absent when an admin turned it off.
    ...(env.OAUTH_DYNAMIC_CLIENT_REGISTRATION ? { registration_endpoint: `${base}/oauth/register` } : {}),
    scopes_supported: [...applicationScopes],
    response_types_supported: ["code", "token"],
    response_modes_supported: ["query", "fragment"],
    grant_types_supported: [
      "authorization_code",
      "password",
      "client_credentials",
      "refresh_token",
      "implicit",
      "urn:ietf:params:oauth:grant-type:device_code",
    ],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    claim_types_supported: ["normal"],
    claims_supported: [
      "iss",
      "sub",
      "aud",
      "exp",
      "iat",
      "auth_time",
      "nonce",
      "name",
      "nickname",
      "preferred_username",
      "email",
      "email_verified",
      "profile",
      "picture",
    ],
    code_challenge_methods_supported: ["plain", "S256"],
    ...(oauthAuthorizationResponseIss ? { authorization_response_iss_parameter_supported: true } : {}),
    // A client_id may be the HTTPS URL of the client's metadata document (the MCP authorization spec, 2025-11-25).
    client_id_metadata_document_supported: true,
  };
}
