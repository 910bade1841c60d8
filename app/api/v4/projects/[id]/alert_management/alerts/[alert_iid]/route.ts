import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { alertStatuses, getAlert, serializeAlert, updateAlertStatus } from "@/lib/alerts/alerts";

const route = "/projects/:id/alert_management/alerts/:alert_iid";

export const GET = apiRoute({ route, scopes: readApiScopes }, async ({ ctx, url, params }) => {
  const { alert_iid } = parseParams({ alert_iid: positiveIntegerParam }, { ...readQuery(url), alert_iid: params.alert_iid });
  const details = await getAlert(ctx, params.id!, alert_iid);
  return json(serializeAlert(details.view, details));
});

export const PUT = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { alert_iid: positiveIntegerParam, status: z.enum(alertStatuses) },
    { ...readQuery(url), ...(await readBody(request)), alert_iid: params.alert_iid },
  );
  const updated = await updateAlertStatus(ctx, params.id!, input.alert_iid, input.status);
  return json(serializeAlert(updated.view, updated));
});

export { routeNotFound as POST, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
