import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { sendTestAlert } from "@/lib/alerts/test-alert";

export const POST = apiRoute(
  { route: "/projects/:id/alert_management/integrations/:integration_id/test_alert", scopes: writeApiScopes },
  async ({ ctx, request, url, params }) => {
    const input = parseParams(
      { integration_id: positiveIntegerParam, payload: z.record(z.string(), z.unknown()) },
      { ...readQuery(url), ...(await readBody(request)), integration_id: params.integration_id },
    );
    const answer = await sendTestAlert(ctx, params.id!, input.integration_id, input.payload);
    return json(answer.body, answer.status, answer.headers);
  },
);

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
