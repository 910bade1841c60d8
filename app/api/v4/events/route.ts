import { apiResource, endpoint } from "@/lib/api/endpoint";
import { readUserScopes } from "@/lib/api/scopes";
import { eventQueryOf, eventsAnswer, ownEventQueryParams } from "@/lib/events/api";
import { listOwnEvents } from "@/lib/events/query";
import { listOf } from "@/lib/api/responses";
import { eventEntity } from "@/lib/events/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/events", {
  GET: endpoint({
    response: listOf(eventEntity),
    scopes: readUserScopes,
    params: ownEventQueryParams,
    handle: async ({ ctx, request, url, params }) => {
      const query = eventQueryOf(params);
      return eventsAnswer(request, url, await listOwnEvents(ctx, query.scopeAll, query.filters, query.page), query);
    },
  }),
});
