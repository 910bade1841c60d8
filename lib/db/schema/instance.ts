import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

// Instance-wide secrets generated on first start (e.g. the session signing secret), shared by every replica.
export const instanceSecrets = pgTable("instance_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/**
 * Settings an admin changes for the whole instance (GitLab's `application_settings`): one row, written the first time
 * an admin saves; until then every setting has its column's default.
 */
export const applicationSettings = pgTable(
  "application_settings",
  {
    id: integer("id").primaryKey().default(1),
    /** RFC 9207: `iss` in every authorization response, and discovery says so. GitLab sends neither. */
    oauthAuthorizationResponseIss: boolean("oauth_authorization_response_iss").notNull().default(false),
    /** Webhooks and integrations may send requests to loopback, private and link-local addresses (GitLab's, off by default). */
    allowLocalRequestsFromWebHooksAndServices: boolean("allow_local_requests_from_web_hooks_and_services").notNull().default(false),
    /** Users may create top-level groups (GitLab's `can_create_group`); admins always may. */
    canCreateGroup: boolean("can_create_group").notNull().default(true),
    updatedAt: updatedAt(),
  },
  (table) => [check("application_settings_single_row", sql`${table.id} = 1`)],
);
