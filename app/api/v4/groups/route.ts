import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { listGroupsEndpoint } from "@/lib/groups/endpoints";
import { createGroup } from "@/lib/groups/groups";
import { serializeGroupDetail, groupDetailEntity } from "@/lib/groups/serialize";
import { projectVisibilities } from "@/lib/projects/projects";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups", {
  GET: listGroupsEndpoint,
  POST: endpoint({
    response: createdWith(groupDetailEntity),
    scopes: writeApiScopes,
    params: {
      name: z.string(),
      path: z.string(),
      parent_id: positiveIntegerParam.optional(),
      visibility: z.enum(projectVisibilities).optional(),
      description: z.string().optional(),
    },
    handle: async ({ ctx, params }) => {
      const view = await createGroup(ctx, {
        name: params.name,
        path: params.path,
        parentId: params.parent_id,
        visibility: params.visibility,
        description: params.description,
      });
      return created(serializeGroupDetail(view));
    },
  }),
});
