import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment, integerParam, projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { deleteIntegration, getIntegration, serializeIntegration, updateIntegration, alertIntegrationEntity } from "@/lib/alerts/integrations";
import { payloadAttributeMappingSchema } from "@/lib/alerts/schemas";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";
import { payloadFormatSettings } from "@/lib/alerts/formats/types";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { ...projectPath, integration_id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/integrations/:integration_id", {
  GET: endpoint({
    response: okWith(alertIntegrationEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(await serializeIntegration(ctx, await getIntegration(ctx, path.id, path.integration_id))),
  }),
  PUT: endpoint({
    response: okWith(alertIntegrationEntity),
    scopes: writeApiScopes,
    path,
    params: {
      name: z.string().optional(),
      active: booleanParam.optional(),
      payload_example: z.string().optional(),
      payload_attribute_mapping: payloadAttributeMappingSchema.optional(),
      rate_limit_per_minute: integerParam.pipe(z.number().int().min(1)).nullable().optional(),
      payload_format: z.enum(payloadFormatSettings).optional(),
      // A heartbeat's settings; their ranges are the verb's to check (400 with the field named).
      heartbeat_interval_seconds: integerParam.optional(),
      heartbeat_grace_seconds: integerParam.optional(),
    },
    handle: async ({ ctx, path, params }) => {
      const integration = await updateIntegration(ctx, path.id, path.integration_id, {
        name: params.name,
        active: params.active,
        payloadExample: params.payload_example,
        payloadAttributeMapping: params.payload_attribute_mapping as PayloadAttributeMapping | undefined,
        rateLimitPerMinute: params.rate_limit_per_minute,
        payloadFormat: params.payload_format,
        heartbeatIntervalSeconds: params.heartbeat_interval_seconds,
        heartbeatGraceSeconds: params.heartbeat_grace_seconds,
      });
      return json(await serializeIntegration(ctx, integration));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteIntegration(ctx, path.id, path.integration_id);
      return noContent();
    },
  }),
});
