import { apiRoute } from "@/lib/api/handler";
import { readUserScopes } from "@/lib/api/scopes";
import { eventsResponse, parseEventQuery } from "@/lib/events/api";
import { listOwnEvents } from "@/lib/events/query";

export const GET = apiRoute({ route: "/events", scopes: readUserScopes }, async ({ ctx, request, url }) => {
  const query = parseEventQuery(url, { allowScope: true });
  return eventsResponse(request, url, await listOwnEvents(ctx, query.scopeAll, query.filters, query.page), query);
});

export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
