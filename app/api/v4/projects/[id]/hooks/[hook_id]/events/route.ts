import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, integerParam, projectPath, stringListParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { hookLogStatusCategories, listHookLogs, serializeHookLog, hookLogEntity } from "@/lib/webhooks/logs";
import { listOf } from "@/lib/api/responses";

/** A status code (100–599) or a category. */
const statusValue = z.union([z.string().regex(/^[1-5]\d\d$/), z.enum(hookLogStatusCategories)]);

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/hooks/:hook_id/events", {
  GET: endpoint({
    response: listOf(hookLogEntity),
    scopes: readApiScopes,
    path: { ...projectPath, hook_id: idSegment },
    paginated: true,
    params: {
      status: stringListParam.pipe(z.array(statusValue)).optional(),
      // GitLab pages a hook's events 20 at a time at most.
      per_page: integerParam.pipe(z.number().int().min(1).max(20)).optional(),
    },
    handle: async ({ ctx, url, path, params, page }) => {
      const list = await listHookLogs(ctx, path.id, path.hook_id, { status: params.status }, page);
      return paginated(url, page, { ...list, items: list.items.map(serializeHookLog) });
    },
  }),
});
