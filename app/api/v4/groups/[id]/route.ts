import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { groupPath } from "@/lib/groups/endpoints";
import { deleteGroup, getVisibleGroup, updateGroup } from "@/lib/groups/groups";
import { serializeGroupDetail, groupDetailEntity } from "@/lib/groups/serialize";
import { projectVisibilities } from "@/lib/projects/projects";
import { acceptedMessage, okWith } from "@/lib/api/responses";

const updateParams = {
  name: z.string().optional(),
  path: z.string().optional(),
  description: z.string().optional(),
  visibility: z.enum(projectVisibilities).optional(),
};

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/groups/:id", {
  GET: endpoint({
    response: okWith(groupDetailEntity),
    scopes: readApiScopes,
    allowAnonymous: true,
    path: groupPath,
    handle: async ({ ctx, path }) => json(serializeGroupDetail(await getVisibleGroup(ctx, path.id))),
  }),
  PUT: endpoint({
    response: okWith(groupDetailEntity),
    scopes: writeApiScopes,
    path: groupPath,
    params: updateParams,
    handle: async ({ ctx, path, params }) => {
      if (Object.keys(updateParams).every((name) => params[name as keyof typeof updateParams] === undefined)) {
        throw new ParameterError(Object.keys(updateParams).join(", "), "are missing, at least one parameter must be provided");
      }
      return json(serializeGroupDetail(await updateGroup(ctx, path.id, params)));
    },
  }),
  DELETE: endpoint({
    response: acceptedMessage,
    scopes: writeApiScopes,
    path: groupPath,
    handle: async ({ ctx, path }) => {
      await deleteGroup(ctx, path.id);
      // GitLab deletes groups in the background and says so; here the group is already gone.
      return json({ message: "202 Accepted" }, 202);
    },
  }),
});
