import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import type { Ctx } from "@/lib/context";
import type { Executor } from "@/lib/db";
import { projectAlertSettings } from "@/lib/db/schema";
import { getProjectWithAbility } from "@/lib/projects/projects";

export interface AlertSettings {
  createIncident: boolean;
  autoCloseIncident: boolean;
  /** Email Owners and Maintainers about new, recurring and resolved alerts (GitLab's `send_email`). */
  sendEmail: boolean;
}

/** No incidents unless asked for; incidents close with their alert. No emails unless asked for, as GitLab. */
export const defaultAlertSettings: AlertSettings = { createIncident: false, autoCloseIncident: true, sendEmail: false };

export async function readAlertSettings(db: Executor, projectId: number): Promise<AlertSettings> {
  const [row] = await db.select().from(projectAlertSettings).where(eq(projectAlertSettings.projectId, projectId));
  return row ? { createIncident: row.createIncident, autoCloseIncident: row.autoCloseIncident, sendEmail: row.sendEmail } : defaultAlertSettings;
}

/** `GET …/alert_management/settings` (Maintainer+). */
export async function getAlertSettings(ctx: Ctx, projectReference: string): Promise<AlertSettings> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageIntegrations");
  return readAlertSettings(ctx.db, view.project.id);
}

/** `PUT …/alert_management/settings` (Maintainer+): unspecified settings keep their value. */
export async function updateAlertSettings(ctx: Ctx, projectReference: string, changes: Partial<AlertSettings>): Promise<AlertSettings> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageIntegrations");
  const next = { ...(await readAlertSettings(ctx.db, view.project.id)), ...changes };
  await ctx.db
    .insert(projectAlertSettings)
    .values({ projectId: view.project.id, ...next })
    .onConflictDoUpdate({ target: projectAlertSettings.projectId, set: { ...next, updatedAt: ctx.now } });
  return next;
}

export const alertSettingsEntity = entity(
  "AlertSettings",
  "What a project does with the alerts it receives",
  z.strictObject({ create_incident: z.boolean(), auto_close_incident: z.boolean(), send_email: z.boolean() }),
);

export function serializeAlertSettings(settings: AlertSettings): z.infer<typeof alertSettingsEntity> {
  return { create_incident: settings.createIncident, auto_close_incident: settings.autoCloseIncident, send_email: settings.sendEmail };
}
