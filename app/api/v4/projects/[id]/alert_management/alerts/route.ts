import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { pageRequest } from "@/lib/api/pagination";
import { paginationParams, stringListParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { alertSorts, alertStatuses, listAlerts, serializeAlert } from "@/lib/alerts/alerts";

export const GET = apiRoute({ route: "/projects/:id/alert_management/alerts", scopes: readApiScopes }, async ({ ctx, url, params }) => {
  const query = parseParams(
    {
      status: stringListParam.pipe(z.array(z.enum(alertStatuses))).optional(),
      search: z.string().optional(),
      sort: z.enum(alertSorts).optional(),
      ...paginationParams,
    },
    readQuery(url),
  );
  const page = pageRequest(query);
  const result = await listAlerts(ctx, params.id!, { status: query.status, search: query.search, sort: query.sort }, page);
  return paginated(url, page, { items: result.items.map((item) => serializeAlert(result.view, item)), total: result.total });
});

export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
