import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { getNamespace } from "@/lib/groups/namespaces";
import { serializeNamespace } from "@/lib/groups/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/namespaces/:id", {
  GET: endpoint({
    scopes: readApiScopes,
    path: { id: z.string() },
    handle: async ({ ctx, path }) => json(serializeNamespace(await getNamespace(ctx, path.id))),
  }),
});
