import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { resetIntegrationToken, serializeIntegration } from "@/lib/alerts/integrations";

export const POST = apiRoute(
  { route: "/projects/:id/alert_management/integrations/:integration_id/reset_token", scopes: writeApiScopes },
  async ({ ctx, url, params }) => {
    const { integration_id } = parseParams({ integration_id: positiveIntegerParam }, { ...readQuery(url), integration_id: params.integration_id });
    return json(await serializeIntegration(ctx, await resetIntegrationToken(ctx, params.id!, integration_id)));
  },
);

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
