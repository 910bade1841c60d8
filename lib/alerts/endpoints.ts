import "server-only";
import { z } from "zod";
import { endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath, stringListParam } from "@/lib/api/param-types";
import { json, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { alertSorts, alertStatuses, getAlert, listAlerts, serializeAlert, updateAlertStatus } from "./alerts";

/**
 * The alert endpoints that both the REST API (their route files) and the MCP server's tools serve: one declaration of
 * each, so a tool takes the same parameters, calls the same verb and answers the same JSON.
 */

const alertPath = { ...projectPath, alert_iid: idSegment };

/** `GET /projects/:id/alert_management/alerts`. */
export const listAlertsEndpoint = endpoint({
  scopes: readApiScopes,
  path: projectPath,
  paginated: true,
  params: {
    status: stringListParam.pipe(z.array(z.enum(alertStatuses))).optional(),
    // The list page's bound too: a contains-search costs the length of the pattern at every place of every text.
    search: z.string().max(255).optional(),
    sort: z.enum(alertSorts).optional(),
  },
  handle: async ({ ctx, url, path, params, page }) => {
    const result = await listAlerts(ctx, path.id, { status: params.status, search: params.search, sort: params.sort }, page);
    return paginated(url, page, { ...result, items: result.items.map((item) => serializeAlert(result.view, item)) });
  },
});

/** `GET /projects/:id/alert_management/alerts/:alert_iid`. */
export const getAlertEndpoint = endpoint({
  scopes: readApiScopes,
  path: alertPath,
  handle: async ({ ctx, path }) => {
    const details = await getAlert(ctx, path.id, path.alert_iid);
    return json(serializeAlert(details.view, details));
  },
});

/** `PUT /projects/:id/alert_management/alerts/:alert_iid`. */
export const updateAlertStatusEndpoint = endpoint({
  scopes: writeApiScopes,
  path: alertPath,
  params: { status: z.enum(alertStatuses) },
  handle: async ({ ctx, path, params }) => {
    const updated = await updateAlertStatus(ctx, path.id, path.alert_iid, params.status);
    return json(serializeAlert(updated.view, updated));
  },
});
