import { apiResource } from "@/lib/api/endpoint";
import { allMembersEndpoint } from "@/lib/groups/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/members/all", { GET: allMembersEndpoint("group") });
