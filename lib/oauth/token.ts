import "server-only";
import type { Database } from "@/lib/db";
import { missingParameter, oauthError } from "./errors";
import { singleValued, type OAuthParams } from "./http";
import { authorizationCodeGrant } from "./grants/authorization-code";
import { deviceCodeGrant } from "./grants/device-code";
import { passwordGrant } from "./grants/password";
import { refreshTokenGrant } from "./grants/refresh-token";
import type { GrantHandler } from "./grants/types";

export const deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code";

const grantHandlers = new Map<string, GrantHandler>([
  ["authorization_code", authorizationCodeGrant],
  ["refresh_token", refreshTokenGrant],
  ["password", passwordGrant],
  [deviceCodeGrantType, deviceCodeGrant],
]);

export const supportedGrantTypes = [...grantHandlers.keys()];

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
  const grantType = single.grant_type;
  if (!grantType) throw missingParameter("grant_type");
  const handler = grantHandlers.get(grantType);
  if (!handler) throw oauthError("unsupported_grant_type");
  const grantParams = Object.fromEntries(Object.entries(single).filter(([name]) => handler.parameters.has(name)));
  return handler.handle({ db, request, params: grantParams, now });
}
