import "server-only";
import { SignJWT } from "jose";
import type { Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { idTokenGroupClaims } from "@/lib/groups/claims";
import { userAvatarUrl, userWebUrl } from "@/lib/users/serialize";
import { getSigningKey } from "./keys";

export const idTokenLifetimeSeconds = 120;

export function issuer(): string {
  return env.EXTERNAL_URL;
}

/**
 * The claims about a user that `openid` releases, shared by the ID token and userinfo. The address comes only with the
 * `email` scope, and `email_verified` says whether its owner proved it by opening the confirmation link: relying
 * parties link accounts by verified address, and anyone can sign up with any address. (Without `email`, GitLab gives
 * the public email; accounts here have none, so neither claim.)
 */
export function userClaims(user: UserRow, scopes: readonly string[]) {
  return {
    sub: String(user.id),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    ...(scopes.includes("email") ? { email: user.email, email_verified: user.confirmedAt !== null } : {}),
    profile: userWebUrl(user),
    picture: userAvatarUrl(user),
  };
}

export interface IdTokenInput {
  user: UserRow;
  clientId: string;
  scopes: readonly string[];
  authTime: Date | null;
  nonce?: string | null;
  now: Date;
}

/** An RS256 ID token (OpenID Connect Core §2) for a token response that includes the `openid` scope. */
export async function signIdToken(db: Database, input: IdTokenInput): Promise<string> {
  const key = await getSigningKey(db);
  const issuedAt = Math.floor(input.now.getTime() / 1000);
  return new SignJWT({
    ...userClaims(input.user, input.scopes),
    ...(await idTokenGroupClaims(db, input.user.id, input.now)),
    ...(input.authTime ? { auth_time: Math.floor(input.authTime.getTime() / 1000) } : {}),
    ...(input.nonce ? { nonce: input.nonce } : {}),
  })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .setIssuer(issuer())
    .setAudience(input.clientId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + idTokenLifetimeSeconds)
    .sign(key.privateKey);
}
