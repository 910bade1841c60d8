import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { readApiScopes } from "@/lib/api/scopes";
import { eventQueryOf, eventQueryParams, eventsAnswer } from "@/lib/events/api";
import { listProjectEvents } from "@/lib/events/query";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/events", {
  GET: endpoint({
    scopes: readApiScopes,
    allowAnonymous: true,
    path: { id: z.string() },
    params: eventQueryParams,
    handle: async ({ ctx, request, url, path, params }) => {
      const query = eventQueryOf(params);
      return eventsAnswer(request, url, await listProjectEvents(ctx, path.id, query.filters, query.page), query);
    },
  }),
});
