import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { dateParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { createMilestone } from "@/lib/issues/milestones";
import { serializeMilestone } from "@/lib/issues/serialize";

export const POST = apiRoute({ route: "/projects/:id/milestones", scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { title: z.string(), description: z.string().nullable().optional(), due_date: dateParam.nullable().optional(), start_date: dateParam.nullable().optional() },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  const milestone = await createMilestone(ctx, params.id!, {
    title: input.title,
    description: input.description,
    dueDate: input.due_date,
    startDate: input.start_date,
  });
  return created(serializeMilestone(milestone, ctx.now));
});

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
