import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment, projectPath } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createNote, listNotes } from "@/lib/issues/notes";
import { serializeNote } from "@/lib/issues/serialize";
import { maxTextRequestBytes } from "@/lib/issues/text-limits";

const path = { ...projectPath, issue_iid: idSegment };

// As on GitLab, every notes endpoint needs a signed-in caller, even for public projects.
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues/:issue_iid/notes", {
  GET: endpoint({
    scopes: readApiScopes,
    path,
    paginated: true,
    params: {
      order_by: z.enum(["created_at", "updated_at"]).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
      activity_filter: z.enum(["all_notes", "only_comments", "only_activity"]).optional(),
    },
    handle: async ({ ctx, url, path, params, page }) => {
      const options = { orderBy: params.order_by, sort: params.sort, activityFilter: params.activity_filter };
      const result = await listNotes(ctx, path.id, path.issue_iid, options, page);
      return paginated(url, page, { ...result, items: result.items.map(serializeNote) });
    },
  }),
  POST: endpoint({
    scopes: writeApiScopes,
    maxBodyBytes: maxTextRequestBytes,
    path,
    // `confidential` is GitLab's older name for `internal`.
    params: { body: z.string(), internal: booleanParam.optional(), confidential: booleanParam.optional() },
    handle: async ({ ctx, path, params }) => {
      const note = await createNote(ctx, path.id, path.issue_iid, { body: params.body, internal: params.internal ?? params.confidential });
      return created(serializeNote(note));
    },
  }),
});
