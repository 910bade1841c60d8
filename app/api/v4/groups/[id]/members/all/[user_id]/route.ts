import { apiResource } from "@/lib/api/endpoint";
import { allMemberEndpoint } from "@/lib/groups/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/members/all/:user_id", { GET: allMemberEndpoint("group") });
