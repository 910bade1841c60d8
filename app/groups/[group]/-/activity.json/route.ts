import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { readApiScopes } from "@/lib/api/scopes";
import { eventQueryOf, eventQueryParams, eventsAnswer } from "@/lib/events/api";
import { listGroupEventsAt } from "@/lib/events/query";
import { routeNamespacePath } from "@/lib/projects/route-path";
import { listOf } from "@/lib/api/responses";
import { eventEntity } from "@/lib/events/serialize";

/**
 * What the group activity page reads, as GitLab's page reads `/groups/:group/-/activity.json`: the events of the group
 * and of its projects and subgroups, in the Events API's shape, paging and filters (GitLab has no API route for them).
 */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:group/-/activity.json", {
  GET: endpoint({
    response: listOf(eventEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: { group: z.string() },
    params: eventQueryParams,
    handle: async ({ ctx, request, url, path, params }) => {
      const query = eventQueryOf(params);
      return eventsAnswer(request, url, await listGroupEventsAt(ctx, routeNamespacePath(path.group), query.filters, query.page), query);
    },
  }),
});
