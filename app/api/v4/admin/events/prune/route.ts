import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { pruneEventsNow, pruneRunEntity } from "@/lib/events/retention";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/admin/events/prune", {
  /** Admin: deletes events older than the retention period now (`npm run events:prune`). */
  POST: endpoint({
    response: okWith(pruneRunEntity),
    scopes: writeApiScopes,
    handle: async ({ ctx }) => {
      const run = await pruneEventsNow(ctx);
      return json({ ran: run.ran, deleted: run.deleted, cutoff: run.cutoff });
    },
  }),
});
