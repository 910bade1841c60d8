import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { booleanParam, integerParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { deleteIntegration, getIntegration, serializeIntegration, updateIntegration } from "@/lib/alerts/integrations";
import { payloadAttributeMappingSchema } from "@/lib/alerts/schemas";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";

const route = "/projects/:id/alert_management/integrations/:integration_id";
const integrationIdParam = { integration_id: positiveIntegerParam };

export const GET = apiRoute({ route, scopes: readApiScopes }, async ({ ctx, url, params }) => {
  const { integration_id } = parseParams(integrationIdParam, { ...readQuery(url), integration_id: params.integration_id });
  return json(await serializeIntegration(ctx, await getIntegration(ctx, params.id!, integration_id)));
});

export const PUT = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    {
      ...integrationIdParam,
      name: z.string().optional(),
      active: booleanParam.optional(),
      payload_example: z.string().optional(),
      payload_attribute_mapping: payloadAttributeMappingSchema.optional(),
      rate_limit_per_minute: integerParam.pipe(z.number().int().min(1)).nullable().optional(),
    },
    { ...readQuery(url), ...(await readBody(request)), integration_id: params.integration_id },
  );
  const integration = await updateIntegration(ctx, params.id!, input.integration_id, {
    name: input.name,
    active: input.active,
    payloadExample: input.payload_example,
    payloadAttributeMapping: input.payload_attribute_mapping as PayloadAttributeMapping | undefined,
    rateLimitPerMinute: input.rate_limit_per_minute,
  });
  return json(await serializeIntegration(ctx, integration));
});

export const DELETE = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, url, params }) => {
  const { integration_id } = parseParams(integrationIdParam, { ...readQuery(url), integration_id: params.integration_id });
  await deleteIntegration(ctx, params.id!, integration_id);
  return noContent();
});

export { routeNotFound as POST, routeNotFound as PATCH } from "@/lib/api/handler";
