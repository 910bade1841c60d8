import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { listPayloadFields } from "@/lib/alerts/integrations";

export const POST = apiRoute(
  { route: "/projects/:id/alert_management/payload_fields", scopes: writeApiScopes },
  async ({ ctx, request, url, params }) => {
    const { payload_example } = parseParams({ payload_example: z.string() }, { ...readQuery(url), ...(await readBody(request)) });
    return json(await listPayloadFields(ctx, params.id!, payload_example));
  },
);

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
