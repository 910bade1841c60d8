import "server-only";
import { endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { readApiScopes } from "@/lib/api/scopes";
import { eventQueryOf, eventQueryParams, eventsAnswer } from "./api";
import { listProjectEvents } from "./query";
import { eventEntity } from "./serialize";
import { listOf } from "@/lib/api/responses";

/** `GET /projects/:id/events`, served by its route file and by the MCP server's `list_project_events` tool. */
export const listProjectEventsEndpoint = endpoint({
  response: listOf(eventEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: projectPath,
  params: eventQueryParams,
  handle: async ({ ctx, request, url, path, params }) => {
    const query = eventQueryOf(params);
    return eventsAnswer(request, url, await listProjectEvents(ctx, path.id, query.filters, query.page), query);
  },
});
