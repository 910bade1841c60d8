import { apiResource } from "@/lib/api/endpoint";
import { createIssueEndpoint, listProjectIssuesEndpoint } from "@/lib/issues/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues", {
  GET: listProjectIssuesEndpoint,
  POST: createIssueEndpoint,
});
