import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { readUserScopes } from "@/lib/api/scopes";
import { eventQueryOf, eventQueryParams, eventsAnswer } from "@/lib/events/api";
import { listUserEvents } from "@/lib/events/query";
import { listOf } from "@/lib/api/responses";
import { eventEntity } from "@/lib/events/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/users/:id/events", {
  GET: endpoint({
    response: listOf(eventEntity),
    scopes: readUserScopes,
    allowAnonymous: true,
    path: { id: z.string() },
    params: eventQueryParams,
    handle: async ({ ctx, request, url, path, params }) => {
      const query = eventQueryOf(params);
      return eventsAnswer(request, url, await listUserEvents(ctx, path.id, query.filters, query.page), query);
    },
  }),
});
