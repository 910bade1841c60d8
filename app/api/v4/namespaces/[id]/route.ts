import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getNamespace } from "@/lib/groups/namespaces";
import { serializeNamespace, namespaceEntity } from "@/lib/groups/serialize";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/namespaces/:id", {
  GET: endpoint({
    response: okWith(namespaceEntity),
    scopes: readApiScopes,
    path: { id: z.string() },
    handle: async ({ ctx, path }) => json(serializeNamespace(await getNamespace(ctx, path.id))),
  }),
});
