import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { readApiScopes } from "@/lib/api/scopes";
import { projectListParams, projectListAnswer } from "@/lib/projects/api";
import { listUserProjectDetails } from "@/lib/projects/projects";
import { listOf } from "@/lib/api/responses";
import { projectAsListedEntity } from "@/lib/projects/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/users/:user_id/projects", {
  GET: endpoint({
    response: listOf(projectAsListedEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    // The user's id or username.
    path: { id: z.string() },
    paginated: { keysetType: "Project" },
    params: projectListParams,
    handle: async ({ ctx, url, path, params, page }) =>
      projectListAnswer(ctx, { url, page, params }, (filters, paging, options) => listUserProjectDetails(ctx, path.id, filters, paging, options)),
  }),
});
