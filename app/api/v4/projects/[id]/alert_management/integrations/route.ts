import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, integerParam, projectPath } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createIntegration, integrationTypes, listIntegrations, serializeIntegration, alertIntegrationEntity } from "@/lib/alerts/integrations";
import { payloadAttributeMappingSchema } from "@/lib/alerts/schemas";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";
import { payloadFormatSettings } from "@/lib/alerts/formats/types";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/integrations", {
  GET: endpoint({
    response: listOf(alertIntegrationEntity),
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    handle: async ({ ctx, url, path, page }) => {
      const list = await listIntegrations(ctx, path.id, page);
      return paginated(url, page, { ...list, items: await Promise.all(list.items.map((integration) => serializeIntegration(ctx, integration))) });
    },
  }),
  POST: endpoint({
    response: createdWith(alertIntegrationEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: {
      name: z.string(),
      type: z.enum(integrationTypes),
      active: booleanParam,
      payload_example: z.string().optional(),
      payload_attribute_mapping: payloadAttributeMappingSchema.optional(),
      rate_limit_per_minute: integerParam.pipe(z.number().int().min(1)).nullable().optional(),
      payload_format: z.enum(payloadFormatSettings).optional(),
      // A heartbeat's settings; their ranges are the verb's to check (400 with the field named).
      heartbeat_interval_seconds: integerParam.optional(),
      heartbeat_grace_seconds: integerParam.optional(),
    },
    handle: async ({ ctx, path, params }) => {
      const integration = await createIntegration(ctx, path.id, {
        name: params.name,
        type: params.type,
        active: params.active,
        payloadExample: params.payload_example,
        payloadAttributeMapping: params.payload_attribute_mapping as PayloadAttributeMapping | undefined,
        rateLimitPerMinute: params.rate_limit_per_minute,
        payloadFormat: params.payload_format,
        heartbeatIntervalSeconds: params.heartbeat_interval_seconds,
        heartbeatGraceSeconds: params.heartbeat_grace_seconds,
      });
      return created(await serializeIntegration(ctx, integration));
    },
  }),
});
