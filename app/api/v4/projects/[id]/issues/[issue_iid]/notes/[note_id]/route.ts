import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment, projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { deleteNote, getNote, updateNote } from "@/lib/issues/notes";
import { serializeNote, noteEntity } from "@/lib/issues/serialize";
import { maxTextRequestBytes } from "@/lib/issues/text-limits";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { ...projectPath, issue_iid: idSegment, note_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues/:issue_iid/notes/:note_id", {
  GET: endpoint({
    response: okWith(noteEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(serializeNote(await getNote(ctx, path.id, path.issue_iid, path.note_id))),
  }),
  PUT: endpoint({
    response: okWith(noteEntity),
    scopes: writeApiScopes,
    maxBodyBytes: maxTextRequestBytes,
    path,
    params: { body: z.string().optional() },
    handle: async ({ ctx, path, params }) => {
      // GitLab's `allow_blank: false`.
      if (params.body !== undefined && params.body.trim() === "") throw new ParameterError("body", "is empty");
      return json(serializeNote(await updateNote(ctx, path.id, path.issue_iid, path.note_id, { body: params.body })));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteNote(ctx, path.id, path.issue_iid, path.note_id);
      return noContent();
    },
  }),
});
