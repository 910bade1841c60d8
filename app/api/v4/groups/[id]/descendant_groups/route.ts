import { apiResource } from "@/lib/api/endpoint";
import { subgroupsEndpoint } from "@/lib/groups/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id/descendant_groups", { GET: subgroupsEndpoint("descendants") });
