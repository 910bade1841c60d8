import { boolean, date, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { users } from "./users";

export const personalAccessTokens = pgTable(
  "personal_access_tokens",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // SHA-256 of the token: tokens are random 32-byte values, so a fast digest is enough and keeps lookups to one index probe.
    tokenDigest: text("token_digest").notNull(),
    scopes: text("scopes").array().notNull(),
    expiresAt: date("expires_at", { mode: "string" }),
    revoked: boolean("revoked").notNull().default(false),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("personal_access_tokens_token_digest_key").on(table.tokenDigest),
    index("personal_access_tokens_user_id_idx").on(table.userId, table.id),
  ],
);

export type PersonalAccessTokenRow = typeof personalAccessTokens.$inferSelect;
