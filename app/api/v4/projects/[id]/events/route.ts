import { apiRoute } from "@/lib/api/handler";
import { readApiScopes } from "@/lib/api/scopes";
import { eventsResponse, parseEventQuery } from "@/lib/events/api";
import { listProjectEvents } from "@/lib/events/query";

export const GET = apiRoute({ route: "/projects/:id/events", scopes: readApiScopes, allowAnonymous: true }, async ({ ctx, request, url, params }) => {
  const query = parseEventQuery(url, { allowScope: false });
  return eventsResponse(request, url, await listProjectEvents(ctx, params.id!, query.filters, query.page), query);
});

export { routeNotFound as POST, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
