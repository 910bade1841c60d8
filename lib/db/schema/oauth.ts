import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, instant, updatedAt } from "./columns";
import { users } from "./users";

/** A registered OAuth client. Its secret is stored only as a SHA-256 digest, so it can be shown once. */
export const oauthApplications = pgTable(
  "oauth_applications",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    secretDigest: text("secret_digest").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    scopes: text("scopes").array().notNull(),
    confidential: boolean("confidential").notNull().default(true),
    /** Admin-marked: the consent screen is skipped. */
    trusted: boolean("trusted").notNull().default(false),
    /** Admin-enabled, deprecated `response_type=token`; never on for new applications. */
    implicitGrantEnabled: boolean("implicit_grant_enabled").notNull().default(false),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "cascade" }),
    /**
     * How the client came to be known: registered by a person (`manual`), by itself through `POST /oauth/register`
     * (`dynamic`, GitLab's `dynamic` applications), or from the client ID metadata document its URL client_id names
     * (`metadata_document`). Both of the latter are unverified until an admin marks them trusted.
     */
    registration: text("registration", { enum: ["manual", "dynamic", "metadata_document"] }).notNull().default("manual"),
    /** For `metadata_document` clients: when the document was read, and until when that reading may be used. */
    metadataFetchedAt: instant("metadata_fetched_at"),
    metadataExpiresAt: instant("metadata_expires_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("oauth_applications_uid_key").on(table.uid),
    index("oauth_applications_owner_idx").on(table.ownerId),
    // Housekeeping looks for self-registered clients nobody authorized: few rows, read oldest first.
    index("oauth_applications_unverified_idx").on(table.createdAt).where(sql`registration <> 'manual'`),
  ],
);

/**
 * One authorization: everything issued from one code, one password exchange, one device approval or one client
 * credentials exchange, and every refresh after it, belongs to the same grant. Reuse of a spent code or refresh token
 * revokes the whole grant.
 *
 * `user_id` is null for the client credentials grant only: its token acts as the application, with no resource owner
 * (as Doorkeeper's, whose `resource_owner_id` is null). A nullable owner rather than a table of application tokens:
 * such a token is checked, introspected, revoked and invalidated exactly as the others, by the same lookups and
 * triggers, and a nullable column makes TypeScript hand every reader a `number | null` to deal with. The readers: codes
 * and refresh tokens, which such a grant never has (the checks below hold it), find their user or refuse; the
 * authorized-applications page and its revocation select by a user; the token check is typed to say whose token it is
 * (`OAuthAccessTokenCheck`'s `principal`), so nothing that needs a user can take it for one.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    applicationId: integer("application_id").references(() => oauthApplications.id, { onDelete: "cascade" }),
    /** Null only for a client credentials grant, which always has an application. */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    /** When the person last authenticated before approving: the ID token's `auth_time`. */
    authTime: instant("auth_time"),
    /**
     * The resource server (RFC 8707 resource indicator, an absolute URI) every token of the grant is meant for: their
     * audience. Null when the client named none.
     */
    resource: text("resource"),
    revokedAt: instant("revoked_at"),
    createdAt: createdAt(),
  },
  (table) => [
    index("oauth_grants_user_app_idx").on(table.userId, table.applicationId),
    check("oauth_grants_owner_check", sql`${table.userId} is not null or ${table.applicationId} is not null`),
    // Deleting an application (its grants cascade) and finding self-registered ones nobody authorized look by application.
    index("oauth_grants_application_idx").on(table.applicationId),
  ],
);

export const oauthAuthorizationCodes = pgTable(
  "oauth_authorization_codes",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    codeDigest: text("code_digest").notNull(),
    grantId: integer("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    applicationId: integer("application_id")
      .notNull()
      .references(() => oauthApplications.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge"),
    codeChallengeMethod: text("code_challenge_method", { enum: ["plain", "S256"] }),
    nonce: text("nonce"),
    expiresAt: instant("expires_at").notNull(),
    usedAt: instant("used_at"),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("oauth_authorization_codes_digest_key").on(table.codeDigest)],
);

/** An access token and the refresh token issued with it (one row, as both are revoked together). */
export const oauthAccessTokens = pgTable(
  "oauth_access_tokens",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    tokenDigest: text("token_digest").notNull(),
    refreshTokenDigest: text("refresh_token_digest"),
    grantId: integer("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    applicationId: integer("application_id").references(() => oauthApplications.id, { onDelete: "cascade" }),
    /** Null only for a client credentials token (see `oauthGrants`), which has an application and no refresh token. */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    expiresAt: instant("expires_at").notNull(),
    revokedAt: instant("revoked_at"),
    /** Set when the refresh token was exchanged; presenting it again is reuse. */
    refreshedAt: instant("refreshed_at"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("oauth_access_tokens_digest_key").on(table.tokenDigest),
    uniqueIndex("oauth_access_tokens_refresh_digest_key").on(table.refreshTokenDigest),
    index("oauth_access_tokens_grant_idx").on(table.grantId),
    index("oauth_access_tokens_user_app_idx").on(table.userId, table.applicationId),
    // RFC 6749 §4.4.3: a client credentials token comes without a refresh token, so looking a token up by its refresh
    // token always finds a user's.
    check(
      "oauth_access_tokens_owner_check",
      sql`${table.userId} is not null or (${table.applicationId} is not null and ${table.refreshTokenDigest} is null)`,
    ),
  ],
);

/** RFC 8628: a device waiting for a person to approve its user code. */
export const oauthDeviceAuthorizations = pgTable(
  "oauth_device_authorizations",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    deviceCodeDigest: text("device_code_digest").notNull(),
    userCode: text("user_code").notNull(),
    applicationId: integer("application_id")
      .notNull()
      .references(() => oauthApplications.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    expiresAt: instant("expires_at").notNull(),
    lastPolledAt: instant("last_polled_at"),
    decidedById: integer("decided_by_id").references(() => users.id, { onDelete: "cascade" }),
    decision: text("decision", { enum: ["approved", "denied"] }),
    authTime: instant("auth_time"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("oauth_device_authorizations_digest_key").on(table.deviceCodeDigest),
    uniqueIndex("oauth_device_authorizations_user_code_key").on(table.userCode),
    // Deleting a user deletes the device sign-ins they decided, found through this.
    index("oauth_device_authorizations_decided_by_idx").on(table.decidedById).where(sql`${table.decidedById} is not null`),
  ],
);

/** Scopes a user has approved for an application; a later request within them skips the consent screen. */
export const oauthConsents = pgTable(
  "oauth_consents",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    applicationId: integer("application_id")
      .notNull()
      .references(() => oauthApplications.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.applicationId] })],
);

/** The OpenID Connect signing key, created on first start and shared by every replica. */
export const oauthSigningKeys = pgTable("oauth_signing_keys", {
  kid: text("kid").primaryKey(),
  privateJwk: jsonb("private_jwk").notNull(),
  publicJwk: jsonb("public_jwk").notNull(),
  createdAt: createdAt(),
});

export type OAuthApplicationRow = typeof oauthApplications.$inferSelect;
export type OAuthGrantRow = typeof oauthGrants.$inferSelect;
export type OAuthAuthorizationCodeRow = typeof oauthAuthorizationCodes.$inferSelect;
export type OAuthAccessTokenRow = typeof oauthAccessTokens.$inferSelect;
export type OAuthDeviceAuthorizationRow = typeof oauthDeviceAuthorizations.$inferSelect;
