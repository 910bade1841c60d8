import "server-only";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import type { OAuthApplicationRow, UserRow } from "@/lib/db/schema";
import { NotifiedCache } from "@/lib/db/notified-cache";

interface OAuthAccessTokenCheckBase {
  kind: "oauth";
  tokenId: number;
  grantId: number;
  applicationId: number | null;
  applicationUid: string | null;
  scopes: string[];
  expiresAt: Date;
  createdAt: Date;
  /** The token or its grant was revoked. */
  revoked: boolean;
  /** RFC 8707: the resource server the token is for (its grant's resource indicator); null when it names none. */
  resource: string | null;
}

/** A token a user granted (code, password, device or implicit grant): it acts as that user. */
export interface UserOAuthAccessTokenCheck extends OAuthAccessTokenCheckBase {
  principal: "user";
  user: UserRow;
}

/**
 * A client credentials token: it acts as its application and has no user. It has no `user` member at all, so code
 * that needs one cannot compile without first asking `principal` and refusing this kind.
 */
export interface ApplicationOAuthAccessTokenCheck extends OAuthAccessTokenCheckBase {
  principal: "application";
  applicationId: number;
  applicationUid: string;
}

/**
 * What checking a presented token needs, kept per token digest so a request with a known token costs no query:
 * the token's own state (checked against the clock at every use) and whom it acts for, as the request will see them.
 */
export type OAuthAccessTokenCheck = UserOAuthAccessTokenCheck | ApplicationOAuthAccessTokenCheck;

export interface PersonalAccessTokenCheck {
  kind: "personal";
  tokenId: number;
  scopes: string[];
  /** YYYY-MM-DD, as stored. */
  expiresAt: string | null;
  revoked: boolean;
  /** When this process last recorded a use; the check updates it as it writes it. */
  lastUsedAt: Date | null;
  user: UserRow;
}

/** A registered OAuth client by its client_id, for client authentication (introspection, revocation, grants). */
export interface ClientCheck {
  kind: "client";
  application: OAuthApplicationRow;
}

export type TokenCheck = OAuthAccessTokenCheck | PersonalAccessTokenCheck | ClientCheck;

/** What a change touched, as the database's triggers name it (drizzle/0011_token_check_notifications.sql). */
export type TokenCheckTag = `${"user" | "application" | "grant" | "oauth_access_token" | "personal_access_token"}:${number}`;

export const tokenChecksChannel = "token_checks";

/** Enough for every token in active use on a large instance; each entry holds one user row (about a kilobyte). */
const cacheCapacity = 4096;

// Instrumentation and route bundles can hold separate copies of this module; the caches live on globalThis.
const globalForTokenChecks = globalThis as unknown as { tokenCheckCaches?: WeakMap<Database, NotifiedCache<TokenCheck>> };
const caches = (globalForTokenChecks.tokenCheckCaches ??= new WeakMap());

/**
 * Starts caching token checks for `handle`'s database, listening for the notifications that invalidate them. Until it
 * is called (scripts, a process that never started the service) every check reads the database.
 */
export async function startTokenCheckCache(handle: DatabaseHandle): Promise<void> {
  if (caches.has(handle.db)) return;
  const cache = new NotifiedCache<TokenCheck>(cacheCapacity);
  caches.set(handle.db, cache);
  await cache.follow(handle, tokenChecksChannel);
}

/**
 * Drops this process's cached checks built from what a change touched. Call it once the change has committed and
 * before answering, so the next request here sees the change; other processes learn of it from the notification
 * the change's own trigger sent, which arrives a moment later.
 */
export function forgetTokenChecks(db: Database, ...tags: TokenCheckTag[]): void {
  const cache = caches.get(db);
  if (cache) for (const tag of tags) cache.invalidate(tag);
}

function tagsOf(check: TokenCheck): TokenCheckTag[] {
  switch (check.kind) {
    case "client":
      return [`application:${check.application.id}`];
    case "personal":
      return [`user:${check.user.id}`, `personal_access_token:${check.tokenId}`];
    case "oauth": {
      const tags: TokenCheckTag[] = [`oauth_access_token:${check.tokenId}`, `grant:${check.grantId}`];
      if (check.principal === "user") tags.push(`user:${check.user.id}`);
      if (check.applicationId !== null) tags.push(`application:${check.applicationId}`);
      return tags;
    }
  }
}

/**
 * The check of `kind` for `key` (a token's digest, or `client_id:<uid>`), from the cache or from `load`. Undefined
 * when nothing matches, or when the key is known as another kind (token values are random, so a digest is one
 * token's). What does not exist is never cached: anyone can present random values, and they must not fill the cache.
 */
export async function tokenCheck<Kind extends TokenCheck["kind"]>(
  db: Database,
  key: string,
  kind: Kind,
  load: (db: Database, key: string) => Promise<Extract<TokenCheck, { kind: Kind }> | undefined>,
): Promise<Extract<TokenCheck, { kind: Kind }> | undefined> {
  const cache = caches.get(db);
  const cached = cache?.get(key);
  if (cached) return cached.kind === kind ? (cached as Extract<TokenCheck, { kind: Kind }>) : undefined;
  const ticket = cache?.ticket() ?? 0;
  const loaded = await load(db, key);
  if (loaded && cache) cache.fill(key, loaded, tagsOf(loaded), ticket);
  return loaded;
}
