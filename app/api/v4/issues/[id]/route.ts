import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getIssueAsAdmin } from "@/lib/issues/issue-list";
import { serializeIssue } from "@/lib/issues/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/issues/:id", {
  GET: endpoint({
    scopes: readApiScopes,
    path: { id: z.string() },
    handle: async ({ ctx, path }) => json(serializeIssue(await getIssueAsAdmin(ctx, path.id), ctx.now)),
  }),
});
