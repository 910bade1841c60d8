import "server-only";
import type { Ctx } from "@/lib/context";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import { listIntegrations, serializeIntegration } from "./integrations";
import { readAlertSettings, type AlertSettings } from "./settings";

export type SerializedIntegration = Awaited<ReturnType<typeof serializeIntegration>>;

export interface AlertSettingsPage {
  view: ProjectView;
  integrations: SerializedIntegration[];
  settings: AlertSettings;
}

/** Settings → Monitor → Alerts (Maintainer+): the project's integrations with their keys, and its alert settings. */
export async function getAlertSettingsPage(ctx: Ctx, projectReference: string): Promise<AlertSettingsPage> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageIntegrations");
  const { items: integrations } = await listIntegrations(ctx, projectReference);
  return {
    view,
    integrations: await Promise.all(integrations.map((integration) => serializeIntegration(ctx, integration))),
    settings: await readAlertSettings(ctx.db, view.project.id),
  };
}
