import { receiverRoute } from "@/lib/alerts/receiver-route";

const tailOf = ({ segments }: { segments: string[] }) => ["alerts", ...segments];

/** `POST /:namespace/:project/alerts/notify[/:name/:endpoint_identifier][.json]`, and heartbeat pings (`…/alerts/heartbeat/…`). */
export const POST = receiverRoute<{ namespace: string; project: string; segments: string[] }>(tailOf);

/** `GET /:namespace/:project/alerts/heartbeat/:name/:endpoint_identifier`: a heartbeat ping from a cron one-liner. */
export const GET = receiverRoute<{ namespace: string; project: string; segments: string[] }>(tailOf, "GET");
