import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { integerParam, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { serializeProject, projectEntity } from "@/lib/projects/serialize";
import { transferProject } from "@/lib/projects/transfer";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/transfer", {
  PUT: endpoint({
    response: okWith(projectEntity),
    scopes: writeApiScopes,
    path: projectPath,
    // The namespace's id or full path.
    params: { namespace: z.union([integerParam, z.string().regex(/^(?!-?\d+$)/)]).transform(String) },
    handle: async ({ ctx, path, params }) => json(serializeProject(await transferProject(ctx, path.id, params.namespace))),
  }),
});
