import "server-only";
import { eq, lt, or, isNull, and } from "drizzle-orm";
import type { Actor } from "@/lib/context";
import type { Database } from "@/lib/db";
import { personalAccessTokens } from "@/lib/db/schema";
import { ForbiddenError, InvalidTokenError, UnauthorizedError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { resolveOAuthAccessToken } from "@/lib/oauth/api-token";
import { findPersonalAccessTokenCheck, isTokenExpired } from "@/lib/users/personal-access-tokens";

/** Where a request carried its token: GitLab's headers and parameters. */
interface PresentedToken {
  value: string;
  /** Bearer values may be OAuth access tokens or personal access tokens; the others are personal access tokens. */
  bearer: boolean;
}

export function findPresentedToken(request: Request, url: URL): PresentedToken | null {
  const privateToken = url.searchParams.get("private_token") ?? request.headers.get("private-token");
  if (privateToken) return { value: privateToken, bearer: false };
  const authorization = request.headers.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? url.searchParams.get("access_token");
  if (bearer) return { value: bearer, bearer: true };
  return null;
}

/**
 * Something that can turn a presented token into an actor. Returns undefined when the token is not of its kind,
 * so the next resolver may try; throws when the token is its kind but unusable.
 */
export type TokenResolver = (db: Database, token: string, now: Date) => Promise<Actor | undefined>;

const lastUsedResolutionMs = 10 * 60 * 1000;

export const resolvePersonalAccessToken: TokenResolver = async (db, value, now) => {
  const token = await findPersonalAccessTokenCheck(db, value);
  if (!token) return undefined;
  const { user } = token;
  if (token.revoked) throw new InvalidTokenError("Token was revoked. You have to re-authorize from the user.");
  if (isTokenExpired(token, now)) {
    throw new InvalidTokenError("Token is expired. You can either do re-authorization or token refresh.");
  }
  if (user.state === "blocked") throw new ForbiddenError("Your account has been blocked.");
  // Bookkeeping only, so it is written at most every ten minutes per token and never delays the request. The cached
  // check keeps the time this process wrote, so its requests in the next ten minutes do not try again.
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > lastUsedResolutionMs) {
    const staleBefore = new Date(now.getTime() - lastUsedResolutionMs);
    token.lastUsedAt = now;
    db.update(personalAccessTokens)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(personalAccessTokens.id, token.tokenId),
          or(isNull(personalAccessTokens.lastUsedAt), lt(personalAccessTokens.lastUsedAt, staleBefore)),
        ),
      )
      .catch((error: unknown) => logger.warn({ err: error }, "could not record token use"));
  }
  return { kind: "user", user, scopes: new Set(token.scopes), personalAccessTokenId: token.tokenId };
};

/** Bearer values are tried as OAuth access tokens first, then as personal access tokens, as GitLab. */
const bearerResolvers: TokenResolver[] = [resolveOAuthAccessToken, resolvePersonalAccessToken];
const privateTokenResolvers: TokenResolver[] = [resolvePersonalAccessToken];

/** The actor behind a request's token: anonymous without one, 401 for a token nobody issued. */
export async function authenticateToken(db: Database, presented: PresentedToken | null, now: Date): Promise<Actor> {
  if (!presented) return { kind: "anonymous" };
  for (const resolve of presented.bearer ? bearerResolvers : privateTokenResolvers) {
    const actor = await resolve(db, presented.value, now);
    if (actor) return actor;
  }
  throw new UnauthorizedError();
}
