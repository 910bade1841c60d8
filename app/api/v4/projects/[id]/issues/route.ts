import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, projectPath } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { listIssues } from "@/lib/issues/issue-list";
import { issueFiltersFrom, issueListParams, issueMetadataFrom, issueMetadataParams, issueTypeParam } from "@/lib/issues/issue-params";
import { createIssue } from "@/lib/issues/issues";
import { serializeIssue } from "@/lib/issues/serialize";
import { maxTextRequestBytes } from "@/lib/issues/text-limits";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues", {
  GET: endpoint({
    scopes: readApiScopes,
    allowAnonymous: true,
    path: projectPath,
    paginated: true,
    params: issueListParams,
    handle: async ({ ctx, url, path, params, page }) => {
      const result = await listIssues(ctx, path.id, issueFiltersFrom(params), page);
      const items = result.items.map((issue) => serializeIssue(issue, ctx.now, { withLabelsDetails: params.with_labels_details }));
      return paginated(url, page, { ...result, items });
    },
  }),
  POST: endpoint({
    scopes: writeApiScopes,
    maxBodyBytes: maxTextRequestBytes,
    path: projectPath,
    params: {
      title: z.string(),
      description: z.string().nullable().optional(),
      confidential: booleanParam.optional(),
      issue_type: issueTypeParam.optional(),
      ...issueMetadataParams,
    },
    handle: async ({ ctx, path, params }) => {
      const issue = await createIssue(ctx, path.id, {
        title: params.title,
        description: params.description,
        confidential: params.confidential,
        issueType: params.issue_type,
        ...issueMetadataFrom(params),
      });
      return created(serializeIssue(issue, ctx.now));
    },
  }),
});
