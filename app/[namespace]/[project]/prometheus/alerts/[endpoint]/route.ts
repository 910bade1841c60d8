import { receiverRoute } from "@/lib/alerts/receiver-route";

/** `POST /:namespace/:project/prometheus/alerts/notify[.json]` */
export const POST = receiverRoute<{ namespace: string; project: string; endpoint: string }>(({ endpoint }) => ["prometheus", "alerts", endpoint]);
