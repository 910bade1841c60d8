import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getIssueAsAdmin } from "@/lib/issues/issue-list";
import { serializeIssue, issueEntity } from "@/lib/issues/serialize";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/issues/:id", {
  GET: endpoint({
    response: okWith(issueEntity),
    scopes: readApiScopes,
    path: { id: idSegment },
    handle: async ({ ctx, path }) => json(serializeIssue(await getIssueAsAdmin(ctx, path.id), ctx.now)),
  }),
});
