import { handleReceiverRequest } from "@/lib/alerts/receiver-route";

type Params = { params: Promise<{ namespace: string; project: string; segments: string[] }> };

/** `POST /:namespace/:project/alerts/notify[/:name/:endpoint_identifier][.json]` */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { namespace, project, segments } = await params;
  return handleReceiverRequest(request, namespace, project, ["alerts", ...segments]);
}
