import { apiResource } from "@/lib/api/endpoint";
import { getAlertEndpoint, updateAlertEndpoint } from "@/lib/alerts/endpoints";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/alerts/:alert_iid", {
  GET: getAlertEndpoint,
  PUT: updateAlertEndpoint,
});
