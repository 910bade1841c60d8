import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { getAlertSettings, serializeAlertSettings, updateAlertSettings, alertSettingsEntity } from "@/lib/alerts/settings";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/settings", {
  GET: endpoint({
    response: okWith(alertSettingsEntity),
    scopes: readApiScopes,
    path: projectPath,
    handle: async ({ ctx, path }) => json(serializeAlertSettings(await getAlertSettings(ctx, path.id))),
  }),
  PUT: endpoint({
    response: okWith(alertSettingsEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: { create_incident: booleanParam.optional(), auto_close_incident: booleanParam.optional(), send_email: booleanParam.optional() },
    handle: async ({ ctx, path, params }) => {
      const settings = await updateAlertSettings(ctx, path.id, {
        ...(params.create_incident !== undefined ? { createIncident: params.create_incident } : {}),
        ...(params.auto_close_incident !== undefined ? { autoCloseIncident: params.auto_close_incident } : {}),
        ...(params.send_email !== undefined ? { sendEmail: params.send_email } : {}),
      });
      return json(serializeAlertSettings(settings));
    },
  }),
});
