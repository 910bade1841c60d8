import { receiverRoute } from "@/lib/alerts/receiver-route";

/** `POST /:namespace/:project/alerts/notify[/:name/:endpoint_identifier][.json]` */
export const POST = receiverRoute<{ namespace: string; project: string; segments: string[] }>(({ segments }) => ["alerts", ...segments]);
