import { apiRoute } from "@/lib/api/handler";
import { booleanParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { getAlertSettings, serializeAlertSettings, updateAlertSettings } from "@/lib/alerts/settings";

const route = "/projects/:id/alert_management/settings";

export const GET = apiRoute({ route, scopes: readApiScopes }, async ({ ctx, url, params }) => {
  parseParams({}, readQuery(url));
  return json(serializeAlertSettings(await getAlertSettings(ctx, params.id!)));
});

export const PUT = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { create_incident: booleanParam.optional(), auto_close_incident: booleanParam.optional() },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  const settings = await updateAlertSettings(ctx, params.id!, {
    ...(input.create_incident !== undefined ? { createIncident: input.create_incident } : {}),
    ...(input.auto_close_incident !== undefined ? { autoCloseIncident: input.auto_close_incident } : {}),
  });
  return json(serializeAlertSettings(settings));
});

export { routeNotFound as POST, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
