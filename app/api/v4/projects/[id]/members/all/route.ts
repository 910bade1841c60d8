import { apiResource } from "@/lib/api/endpoint";
import { allMembersEndpoint } from "@/lib/groups/endpoints";

/** The project's members and those of the groups above it, each once with their highest role, as GitLab's. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/members/all", { GET: allMembersEndpoint("project") });
