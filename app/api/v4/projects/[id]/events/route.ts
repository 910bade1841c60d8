import { apiResource } from "@/lib/api/endpoint";
import { listProjectEventsEndpoint } from "@/lib/events/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/events", { GET: listProjectEventsEndpoint });
