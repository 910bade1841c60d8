import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { preparedQuery, type Database } from "@/lib/db";
import { applicationSettings } from "@/lib/db/schema";
import { requireAdmin } from "@/lib/users/users";
import type { InstanceSettingsForm } from "./form-schemas";

export type InstanceSettings = InstanceSettingsForm;

/** What an instance whose admin never saved the settings runs with: GitLab's behaviour. */
export const defaultInstanceSettings: InstanceSettings = { oauthAuthorizationResponseIss: false };

const settingsRow = preparedQuery((db) =>
  db
    .select({ oauthAuthorizationResponseIss: applicationSettings.oauthAuthorizationResponseIss })
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

/** Admin area › Settings: the settings as they are (admins only). */
export async function getInstanceSettings(ctx: Ctx): Promise<InstanceSettings> {
  requireAdmin(ctx);
  return instanceSettingsOf(ctx.db);
}

/** Admin area › Settings: saves the settings (admins only); the single row is created by the first save. */
export async function updateInstanceSettings(ctx: Ctx, settings: InstanceSettings): Promise<InstanceSettings> {
  requireAdmin(ctx);
  const [saved] = await ctx.db
    .insert(applicationSettings)
    .values({ id: 1, ...settings, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: applicationSettings.id, set: { ...settings, updatedAt: sql`excluded.updated_at` } })
    .returning({ oauthAuthorizationResponseIss: applicationSettings.oauthAuthorizationResponseIss });
  if (!saved) throw new Error("upsert into application_settings returned no row");
  return saved;
}
