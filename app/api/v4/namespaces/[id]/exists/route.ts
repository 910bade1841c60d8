import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { namespaceExists, namespaceExistenceEntity } from "@/lib/groups/namespaces";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/namespaces/:namespace/exists", {
  GET: endpoint({
    response: okWith(namespaceExistenceEntity),
    scopes: readApiScopes,
    path: { id: z.string() },
    params: { parent_id: positiveIntegerParam.optional() },
    handle: async ({ ctx, path, params }) => json(await namespaceExists(ctx, path.id, params.parent_id)),
  }),
});
