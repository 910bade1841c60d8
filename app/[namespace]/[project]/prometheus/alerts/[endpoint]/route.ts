import { handleReceiverRequest } from "@/lib/alerts/receiver-route";

type Params = { params: Promise<{ namespace: string; project: string; endpoint: string }> };

/** `POST /:namespace/:project/prometheus/alerts/notify[.json]` */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { namespace, project, endpoint } = await params;
  return handleReceiverRequest(request, namespace, project, ["prometheus", "alerts", endpoint]);
}
