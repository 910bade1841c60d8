import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath, searchParam, stringListParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { alertSorts, alertStatuses, listAlerts, serializeAlert } from "@/lib/alerts/alerts";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/alerts", {
  GET: endpoint({
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    params: {
      status: stringListParam.pipe(z.array(z.enum(alertStatuses))).optional(),
      search: searchParam.optional(),
      sort: z.enum(alertSorts).optional(),
    },
    handle: async ({ ctx, url, path, params, page }) => {
      const result = await listAlerts(ctx, path.id, { status: params.status, search: params.search, sort: params.sort }, page);
      return paginated(url, page, { ...result, items: result.items.map((item) => serializeAlert(result.view, item)) });
    },
  }),
});
