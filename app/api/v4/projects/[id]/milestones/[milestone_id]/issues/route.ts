import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listMilestoneIssues } from "@/lib/issues/issue-list";
import { serializeIssue, issueEntity } from "@/lib/issues/serialize";
import { listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/milestones/:milestone_id/issues", {
  GET: endpoint({
    response: listOf(issueEntity),
    scopes: readApiScopes,
    path: { ...projectPath, milestone_id: idSegment },
    paginated: true,
    handle: async ({ ctx, url, path, page }) => {
      const result = await listMilestoneIssues(ctx, path.id, path.milestone_id, page);
      return paginated(url, page, { ...result, items: result.items.map((issue) => serializeIssue(issue, ctx.now)) });
    },
  }),
});
