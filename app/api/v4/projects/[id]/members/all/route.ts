import { apiResource } from "@/lib/api/endpoint";
import { listMembersEndpoint } from "../member-endpoints";

/** On GitLab this adds members inherited from groups; projects here have direct members only, so it is `/members`. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/members/all", { GET: listMembersEndpoint });
