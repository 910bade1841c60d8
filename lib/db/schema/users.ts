import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

export const userStates = ["active", "blocked"] as const;
export type UserState = (typeof userStates)[number];

/**
 * Who an account is: a person, or one of the service's internal users: the alert bot, and the ghost user, who holds
 * what deleted users wrote (GitLab's "Ghost User").
 */
export const userTypes = ["human", "alert_bot", "ghost"] as const;

export const users = pgTable(
  "users",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    username: text("username").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    state: text("state", { enum: userStates }).notNull().default("active"),
    isAdmin: boolean("is_admin").notNull().default(false),
    /** External users see public projects and those they are members of, never other internal ones (GitLab's `external`). */
    external: boolean("external").notNull().default(false),
    // Profile fields GitLab's user entity carries; null until the user (or an admin) fills them in.
    bio: text("bio"),
    location: text("location"),
    organization: text("organization"),
    jobTitle: text("job_title"),
    websiteUrl: text("website_url"),
    /** Bots act inside the service (the alert bot opens incidents); they never sign in. */
    userType: text("user_type", { enum: userTypes }).notNull().default("human"),
    // TOTP: the secret is needed in clear to verify codes; recovery codes are stored as SHA-256 digests.
    otpSecret: text("otp_secret"),
    otpPendingSecret: text("otp_pending_secret"),
    otpEnabledAt: timestamp("otp_enabled_at", { withTimezone: true, precision: 3 }),
    otpLastUsedStep: integer("otp_last_used_step"),
    otpRecoveryCodeDigests: text("otp_recovery_code_digests").array().notNull().default(sql`'{}'::text[]`),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true, precision: 3 }),
    /** When the user proved they own `email` (null: not yet). `email_verified` in OpenID Connect reflects it. */
    confirmedAt: timestamp("confirmed_at", { withTimezone: true, precision: 3 }),
    // One-time links sent by email: only their SHA-256 digests are kept, with when they were sent (they expire).
    confirmationTokenDigest: text("confirmation_token_digest"),
    confirmationSentAt: timestamp("confirmation_sent_at", { withTimezone: true, precision: 3 }),
    resetPasswordTokenDigest: text("reset_password_token_digest"),
    resetPasswordSentAt: timestamp("reset_password_sent_at", { withTimezone: true, precision: 3 }),
    /**
     * Browser sessions carry the version they were signed in under; raising it (password change, blocking, "sign out
     * everywhere") ends every session signed in before.
     */
    sessionVersion: integer("session_version").notNull().default(1),
    /**
     * The feed token lets feed readers fetch Atom feeds as the user (GitLab's feed token): only its SHA-256 digest is
     * kept, so it is shown once, when reset.
     */
    feedTokenDigest: text("feed_token_digest"),
    feedTokenCreatedAt: timestamp("feed_token_created_at", { withTimezone: true, precision: 3 }),
    /** Notification setting: email me about alerts of the projects I maintain (when a project sends alert emails). */
    alertEmails: boolean("alert_emails").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("users_username_lower_key").on(sql`lower(${table.username})`),
    uniqueIndex("users_email_lower_key").on(sql`lower(${table.email})`),
    uniqueIndex("users_confirmation_token_digest_key").on(table.confirmationTokenDigest),
    uniqueIndex("users_reset_password_token_digest_key").on(table.resetPasswordTokenDigest),
    uniqueIndex("users_feed_token_digest_key").on(table.feedTokenDigest),
    // The orders of `GET /users` (by id: the primary key), offset and keyset pages alike.
    index("users_name_idx").on(table.name, table.id),
    index("users_username_idx").on(table.username, table.id),
    index("users_created_idx").on(table.createdAt, table.id),
    index("users_updated_idx").on(table.updatedAt, table.id),
  ],
);

export type UserRow = typeof users.$inferSelect;
