import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam } from "@/lib/api/param-types";
import { readApiScopes } from "@/lib/api/scopes";
import { groupPath } from "@/lib/groups/endpoints";
import { listGroupProjects } from "@/lib/groups/projects";
import { projectListAnswer, projectListParams } from "@/lib/projects/api";
import { listOf } from "@/lib/api/responses";
import { projectAsListedEntity } from "@/lib/projects/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/projects", {
  GET: endpoint({
    response: listOf(projectAsListedEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: groupPath,
    paginated: { keysetType: "Project" },
    params: { ...projectListParams, include_subgroups: booleanParam.optional() },
    handle: async ({ ctx, url, path, params, page }) =>
      projectListAnswer(ctx, { url, page, params }, (filters, paging, options) =>
        listGroupProjects(ctx, path.id, params.include_subgroups ?? false, filters, paging, options),
      ),
  }),
});
