import "server-only";
import { sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { clientAddress } from "@/lib/http/client-address";
import { getRateLimits } from "@/lib/rate-limits/rate-limits";
import { readClientCredentials } from "./client-auth";
import { missingParameter, oauthError } from "./errors";
import { singleValued, type OAuthParams } from "./http";
import { authorizationCodeGrant } from "./grants/authorization-code";
import { clientCredentialsGrant } from "./grants/client-credentials";
import { deviceCodeGrant } from "./grants/device-code";
import { passwordGrant } from "./grants/password";
import { refreshTokenGrant } from "./grants/refresh-token";
import type { GrantHandler } from "./grants/types";

export const deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code";

const grantHandlers = new Map<string, GrantHandler>([
  ["authorization_code", authorizationCodeGrant],
  ["refresh_token", refreshTokenGrant],
  ["password", passwordGrant],
  ["client_credentials", clientCredentialsGrant],
  [deviceCodeGrantType, deviceCodeGrant],
]);

export const supportedGrantTypes = [...grantHandlers.keys()];

/**
 * Counts the request against its client's throttle: the client it names (in HTTP Basic or the body), or, for a request
 * that names none (a password grant without client), the address it comes from.
 */
async function throttleClient(request: Request, params: Record<string, string>): Promise<void> {
  const client = readClientCredentials(request, params);
  // Client ids are whatever the caller typed: only their digest is kept as the counter's key.
  const address = clientAddress(request.headers);
  const key = client ? `client:${sha256Hex(client.clientId)}` : address && `address:${address}`;
  await (await getRateLimits()).consume("oauthTokenPerClient", key);
}

/**
 * `POST /oauth/token`: picks the grant by `grant_type` and hands it only the parameters it declares
 * (RFC 6749 §3.2: parameters must not repeat).
 */
export async function exchangeToken(
  db: Database,
  request: Request,
  params: OAuthParams,
  now: Date,
): Promise<Record<string, string | number>> {
  const single = singleValued(params);
  await throttleClient(request, single);
  const grantType = single.grant_type;
  if (!grantType) throw missingParameter("grant_type");
  const handler = grantHandlers.get(grantType);
  if (!handler) throw oauthError("unsupported_grant_type");
  const grantParams = Object.fromEntries(Object.entries(single).filter(([name]) => handler.parameters.has(name)));
  return handler.handle({ db, request, params: grantParams, now });
}
