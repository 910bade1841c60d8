import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { dateParam, idSegment, projectPath } from "@/lib/api/param-types";
import { requireAtLeastOne } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { deleteMilestone, getMilestone, updateMilestone } from "@/lib/issues/milestones";
import { serializeMilestone, milestoneEntity } from "@/lib/issues/serialize";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { ...projectPath, milestone_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/milestones/:milestone_id", {
  GET: endpoint({
    response: okWith(milestoneEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(serializeMilestone(await getMilestone(ctx, path.id, path.milestone_id), ctx.now)),
  }),
  PUT: endpoint({
    response: okWith(milestoneEntity),
    scopes: writeApiScopes,
    path,
    params: {
      title: z.string().optional(),
      description: z.string().nullable().optional(),
      due_date: dateParam.nullable().optional(),
      start_date: dateParam.nullable().optional(),
      state_event: z.enum(["close", "activate"]).optional(),
    },
    handle: async ({ ctx, path, params }) => {
      requireAtLeastOne(params, ["title", "description", "start_date", "due_date", "state_event"]);
      const milestone = await updateMilestone(ctx, path.id, path.milestone_id, {
        title: params.title,
        description: params.description,
        dueDate: params.due_date,
        startDate: params.start_date,
        stateEvent: params.state_event,
      });
      return json(serializeMilestone(milestone, ctx.now));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteMilestone(ctx, path.id, path.milestone_id);
      return noContent();
    },
  }),
});
