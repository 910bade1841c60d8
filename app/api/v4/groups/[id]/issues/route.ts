import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { groupPath } from "@/lib/groups/endpoints";
import { listGroupIssues } from "@/lib/groups/projects";
import { issueFiltersFrom, issueListParams } from "@/lib/issues/issue-params";
import { serializeIssue, issueEntity } from "@/lib/issues/serialize";
import { listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/issues", {
  GET: endpoint({
    response: listOf(issueEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: groupPath,
    paginated: true,
    params: { ...issueListParams, non_archived: booleanParam.optional() },
    handle: async ({ ctx, url, path, params, page }) => {
      const result = await listGroupIssues(ctx, path.id, { ...issueFiltersFrom(params), nonArchived: params.non_archived }, page);
      const items = result.items.map((issue) => serializeIssue(issue, ctx.now, { withLabelsDetails: params.with_labels_details }));
      return paginated(url, page, { ...result, items });
    },
  }),
});
