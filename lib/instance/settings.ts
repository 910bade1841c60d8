import "server-only";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import type { Ctx } from "@/lib/context";
import { preparedQuery, type Database } from "@/lib/db";
import { applicationSettings } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { requireAdmin } from "@/lib/users/users";
import type { InstanceSettingsForm } from "./form-schemas";

export type InstanceSettings = InstanceSettingsForm;

/** What an instance whose admin never saved the settings runs with: GitLab's behaviour. */
export const defaultInstanceSettings: InstanceSettings = {
  oauthAuthorizationResponseIss: false,
  allowLocalRequestsFromWebHooksAndServices: false,
  canCreateGroup: true,
};

const settingsColumns = {
  oauthAuthorizationResponseIss: applicationSettings.oauthAuthorizationResponseIss,
  allowLocalRequestsFromWebHooksAndServices: applicationSettings.allowLocalRequestsFromWebHooksAndServices,
  canCreateGroup: applicationSettings.canCreateGroup,
};

const settingsRow = preparedQuery((db) =>
  db
    .select(settingsColumns)
    .from(applicationSettings)
    .where(eq(applicationSettings.id, 1))
    .prepare("application_settings_row"),
);

/**
 * The instance's settings, read from the database at each use (one prepared lookup by primary key), so a change an
 * admin saves holds on every replica from the next request on.
 */
export async function instanceSettingsOf(db: Database): Promise<InstanceSettings> {
  const [row] = await settingsRow(db).execute();
  return row ?? defaultInstanceSettings;
}

/**
 * Whether webhooks and integrations may reach the local network (`allowLocalNetwork` of `sendOutbound`), read per
 * request like every setting.
 */
export async function localRequestsAllowedFromWebHooks(db: Database): Promise<boolean> {
  return (await instanceSettingsOf(db)).allowLocalRequestsFromWebHooksAndServices;
}

/** Admin area › Settings: the settings as they are (admins only). */
export async function getInstanceSettings(ctx: Ctx): Promise<InstanceSettings> {
  requireAdmin(ctx);
  return instanceSettingsOf(ctx.db);
}

/**
 * Admin area › Settings and `PUT /application/settings`: saves the settings given, leaving the others as they are
 * (admins only); the single row is created by the first save, with every other setting at its default.
 */
export async function updateInstanceSettings(ctx: Ctx, changes: Partial<InstanceSettings>): Promise<InstanceSettings> {
  requireAdmin(ctx);
  const [saved] = await ctx.db
    .insert(applicationSettings)
    .values({ id: 1, ...changes, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: applicationSettings.id, set: { ...changes, updatedAt: sql`excluded.updated_at` } })
    .returning(settingsColumns);
  if (!saved) throw new Error("upsert into application_settings returned no row");
  return saved;
}

/**
 * `GET /application/settings`: GitLab's entity for the attributes this service has. `signup_enabled` is set by
 * `SIGNUP_ENABLED` and only read here; `oauth_authorization_response_iss` is this service's own (GitLab has no
 * RFC 9207 setting).
 */
export const applicationSettingsEntity = entity(
  "ApplicationSettings",
  "The instance's settings this service has",
  z.strictObject({
    signup_enabled: z.boolean(),
    allow_local_requests_from_web_hooks_and_services: z.boolean(),
    allow_local_requests_from_hooks_and_services: z.boolean(),
    oauth_authorization_response_iss: z.boolean(),
    can_create_group: z.boolean(),
  }),
);

export function serializeApplicationSettings(settings: InstanceSettings): z.infer<typeof applicationSettingsEntity> {
  return {
    signup_enabled: env.SIGNUP_ENABLED,
    allow_local_requests_from_web_hooks_and_services: settings.allowLocalRequestsFromWebHooksAndServices,
    // Its name before GitLab 12.2, which GitLab's entity still carries.
    allow_local_requests_from_hooks_and_services: settings.allowLocalRequestsFromWebHooksAndServices,
    oauth_authorization_response_iss: settings.oauthAuthorizationResponseIss,
    can_create_group: settings.canCreateGroup,
  };
}
