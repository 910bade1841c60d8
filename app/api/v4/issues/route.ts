import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listIssuesAcrossProjects } from "@/lib/issues/issue-list";
import { issueFiltersFrom, issueListParams } from "@/lib/issues/issue-params";
import { serializeIssue } from "@/lib/issues/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/issues", {
  GET: endpoint({
    scopes: readApiScopes,
    // Only `scope=all` is open to anonymous callers; the verb asks the others to sign in.
    allowAnonymous: true,
    paginated: true,
    params: { ...issueListParams, non_archived: booleanParam.optional() },
    handle: async ({ ctx, url, params, page }) => {
      const result = await listIssuesAcrossProjects(ctx, { ...issueFiltersFrom(params), nonArchived: params.non_archived }, page);
      const items = result.items.map((issue) => serializeIssue(issue, ctx.now, { withLabelsDetails: params.with_labels_details }));
      return paginated(url, page, { ...result, items });
    },
  }),
});
