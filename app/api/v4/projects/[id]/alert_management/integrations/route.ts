import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { booleanParam, integerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createIntegration, integrationTypes, listIntegrations, serializeIntegration } from "@/lib/alerts/integrations";
import { payloadAttributeMappingSchema } from "@/lib/alerts/schemas";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";

const route = "/projects/:id/alert_management/integrations";

export const GET = apiRoute({ route, scopes: readApiScopes }, async ({ ctx, url, params }) => {
  parseParams({}, readQuery(url));
  const integrations = await listIntegrations(ctx, params.id!);
  return json(await Promise.all(integrations.map((integration) => serializeIntegration(ctx, integration))));
});

export const POST = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    {
      name: z.string(),
      type: z.enum(integrationTypes),
      active: booleanParam,
      payload_example: z.string().optional(),
      payload_attribute_mapping: payloadAttributeMappingSchema.optional(),
      rate_limit_per_minute: integerParam.pipe(z.number().int().min(1)).nullable().optional(),
    },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  const integration = await createIntegration(ctx, params.id!, {
    name: input.name,
    type: input.type,
    active: input.active,
    payloadExample: input.payload_example,
    payloadAttributeMapping: input.payload_attribute_mapping as PayloadAttributeMapping | undefined,
    rateLimitPerMinute: input.rate_limit_per_minute,
  });
  return created(await serializeIntegration(ctx, integration));
});

export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
