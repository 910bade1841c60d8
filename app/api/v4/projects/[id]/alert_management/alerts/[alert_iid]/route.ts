import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { alertStatuses, getAlert, serializeAlert, updateAlertStatus } from "@/lib/alerts/alerts";

const path = { ...projectPath, alert_iid: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/alerts/:alert_iid", {
  GET: endpoint({
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      const details = await getAlert(ctx, path.id, path.alert_iid);
      return json(serializeAlert(details.view, details));
    },
  }),
  PUT: endpoint({
    scopes: writeApiScopes,
    path,
    params: { status: z.enum(alertStatuses) },
    handle: async ({ ctx, path, params }) => {
      const updated = await updateAlertStatus(ctx, path.id, path.alert_iid, params.status);
      return json(serializeAlert(updated.view, updated));
    },
  }),
});
