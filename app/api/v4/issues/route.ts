import { apiResource } from "@/lib/api/endpoint";
import { listIssuesAcrossProjectsEndpoint } from "@/lib/issues/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/issues", { GET: listIssuesAcrossProjectsEndpoint });
