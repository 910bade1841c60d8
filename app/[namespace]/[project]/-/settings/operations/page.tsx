import { notFound } from "next/navigation";
import { AlertSettings } from "@/components/alerts/alert-settings";
import { ProjectHeader } from "@/components/projects/project-header";
import { getAlertSettingsPage, type AlertSettingsPage } from "@/lib/alerts/settings-page";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { projectFullPath } from "@/lib/projects/serialize";
import {
  createIntegrationAction,
  deleteIntegrationAction,
  parsePayloadFieldsAction,
  resetIntegrationTokenAction,
  sendTestAlertAction,
  updateAlertSettingsAction,
  updateIntegrationAction,
} from "./actions";
import { projectPageFailure, projectPageMetadata } from "../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Alerts · Monitor settings");

/** Settings → Monitor → Alerts. Maintainers and above; everyone else gets the 404 page, as for a missing project. */
export default async function AlertSettingsPage({ params }: { params: Promise<{ namespace: string; project: string }> }) {
  const { namespace, project } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/settings/operations`);
  let page: AlertSettingsPage;
  try {
    page = await getAlertSettingsPage(ctx, routeProjectPath({ namespace, project }));
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/settings/operations`);
  }
  const { view, integrations, settings } = page;
  const fullPath = projectFullPath(view);
  return (
    <>
      <ProjectHeader view={view} current="monitor-settings" />
      <div className="section">
        <h2>Alerts</h2>
        <p className="muted">Display alerts from all configured monitoring tools.</p>
      </div>
      <AlertSettings
        integrations={integrations}
        settings={settings}
        now={ctx.now.toISOString()}
        actions={{
          create: createIntegrationAction.bind(null, fullPath),
          update: updateIntegrationAction.bind(null, fullPath),
          remove: deleteIntegrationAction.bind(null, fullPath),
          resetToken: resetIntegrationTokenAction.bind(null, fullPath),
          parseFields: parsePayloadFieldsAction.bind(null, fullPath),
          sendTestAlert: sendTestAlertAction.bind(null, fullPath),
          saveSettings: updateAlertSettingsAction.bind(null, fullPath),
        }}
      />
    </>
  );
}
