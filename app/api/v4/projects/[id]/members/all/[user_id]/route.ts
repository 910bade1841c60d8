import { apiResource } from "@/lib/api/endpoint";
import { getMemberEndpoint } from "../../member-endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/members/all/:user_id", { GET: getMemberEndpoint });
