import { sql } from "drizzle-orm";
import { boolean, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

export const userStates = ["active", "blocked"] as const;
export type UserState = (typeof userStates)[number];

export const userTypes = ["human", "alert_bot"] as const;

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
    /** Bots act inside the service (the alert bot opens incidents); they never sign in. */
    userType: text("user_type", { enum: userTypes }).notNull().default("human"),
    // TOTP: the secret is needed in clear to verify codes; recovery codes are stored as SHA-256 digests.
    otpSecret: text("otp_secret"),
    otpPendingSecret: text("otp_pending_secret"),
    otpEnabledAt: timestamp("otp_enabled_at", { withTimezone: true, precision: 3 }),
    otpLastUsedStep: integer("otp_last_used_step"),
    otpRecoveryCodeDigests: text("otp_recovery_code_digests").array().notNull().default(sql`'{}'::text[]`),
    failedSignInAttempts: integer("failed_sign_in_attempts").notNull().default(0),
    lockedUntil: timestamp("locked_until", { withTimezone: true, precision: 3 }),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("users_username_lower_key").on(sql`lower(${table.username})`),
    uniqueIndex("users_email_lower_key").on(sql`lower(${table.email})`),
  ],
);

export type UserRow = typeof users.$inferSelect;
