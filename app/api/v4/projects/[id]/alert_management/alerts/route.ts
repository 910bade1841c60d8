import { apiResource } from "@/lib/api/endpoint";
import { listAlertsEndpoint } from "@/lib/alerts/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/alerts", { GET: listAlertsEndpoint });
