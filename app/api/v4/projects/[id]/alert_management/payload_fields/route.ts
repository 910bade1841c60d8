import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { listPayloadFields, payloadFieldEntity } from "@/lib/alerts/integrations";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/alert_management/payload_fields", {
  POST: endpoint({
    response: okWith(z.array(payloadFieldEntity)),
    scopes: writeApiScopes,
    path: projectPath,
    params: { payload_example: z.string() },
    handle: async ({ ctx, path, params }) => json(await listPayloadFields(ctx, path.id, params.payload_example)),
  }),
});
