import { apiResource } from "@/lib/api/endpoint";
import { createIssueNoteEndpoint, listIssueNotesEndpoint } from "@/lib/issues/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues/:issue_iid/notes", {
  GET: listIssueNotesEndpoint,
  POST: createIssueNoteEndpoint,
});
