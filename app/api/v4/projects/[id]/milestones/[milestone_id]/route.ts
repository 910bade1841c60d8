import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { dateParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { getMilestone, updateMilestone } from "@/lib/issues/milestones";
import { serializeMilestone } from "@/lib/issues/serialize";

const route = "/projects/:id/milestones/:milestone_id";

export const GET = apiRoute({ route, scopes: readApiScopes, allowAnonymous: true }, async ({ ctx, url, params }) => {
  const { milestone_id } = parseParams({ milestone_id: positiveIntegerParam }, { ...readQuery(url), milestone_id: params.milestone_id });
  return json(serializeMilestone(await getMilestone(ctx, params.id!, milestone_id), ctx.now));
});

export const PUT = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    {
      milestone_id: positiveIntegerParam,
      title: z.string().optional(),
      description: z.string().nullable().optional(),
      due_date: dateParam.nullable().optional(),
      start_date: dateParam.nullable().optional(),
      state_event: z.enum(["close", "activate"]).optional(),
    },
    { ...readQuery(url), ...(await readBody(request)), milestone_id: params.milestone_id },
  );
  const milestone = await updateMilestone(ctx, params.id!, input.milestone_id, {
    title: input.title,
    description: input.description,
    dueDate: input.due_date,
    startDate: input.start_date,
    stateEvent: input.state_event,
  });
  return json(serializeMilestone(milestone, ctx.now));
});

export { routeNotFound as POST, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
