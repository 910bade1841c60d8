import { apiRoute } from "@/lib/api/handler";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { pruneEventsNow } from "@/lib/events/retention";

/** Admin: deletes events older than the retention period now (`npm run events:prune`). */
export const POST = apiRoute({ route: "/admin/events/prune", scopes: writeApiScopes }, async ({ ctx }) => {
  const run = await pruneEventsNow(ctx);
  return json({ ran: run.ran, deleted: run.deleted, cutoff: run.cutoff });
});

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
