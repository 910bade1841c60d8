import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, dateParam, dateTimeParam, integerListParam, projectPath, searchParam } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createMilestone, listMilestones } from "@/lib/issues/milestones";
import { serializeMilestone, milestoneEntity } from "@/lib/issues/serialize";
import { createdWith, listOf } from "@/lib/api/responses";

// As on GitLab, the milestones API needs a signed-in caller, even for public projects.
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/milestones", {
  GET: endpoint({
    response: listOf(milestoneEntity),
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    params: {
      state: z.enum(["active", "closed", "all"]).optional(),
      iids: integerListParam.optional(),
      title: z.string().optional(),
      search: searchParam.optional(),
      // Projects here belong to no group, so there are no parent milestones to include.
      include_parent_milestones: booleanParam.optional(),
      updated_before: dateTimeParam.optional(),
      updated_after: dateTimeParam.optional(),
    },
    handle: async ({ ctx, url, path, params, page }) => {
      const result = await listMilestones(
        ctx,
        path.id,
        {
          state: params.state,
          iids: params.iids,
          title: params.title,
          search: params.search,
          updatedBefore: params.updated_before,
          updatedAfter: params.updated_after,
        },
        page,
      );
      return paginated(url, page, { ...result, items: result.items.map((milestone) => serializeMilestone(milestone, ctx.now)) });
    },
  }),
  POST: endpoint({
    response: createdWith(milestoneEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: {
      title: z.string(),
      description: z.string().nullable().optional(),
      due_date: dateParam.nullable().optional(),
      start_date: dateParam.nullable().optional(),
    },
    handle: async ({ ctx, path, params }) => {
      const milestone = await createMilestone(ctx, path.id, {
        title: params.title,
        description: params.description,
        dueDate: params.due_date,
        startDate: params.start_date,
      });
      return created(serializeMilestone(milestone, ctx.now));
    },
  }),
});
