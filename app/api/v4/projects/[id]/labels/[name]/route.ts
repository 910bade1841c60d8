import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { labelChangesFrom, labelUpdateParams } from "@/lib/issues/label-params";
import { deleteLabel, getLabel, updateLabel } from "@/lib/issues/labels";
import { serializeProjectLabel, projectLabelEntity } from "@/lib/issues/serialize";
import { noContentAnswer, okWith } from "@/lib/api/responses";

/** `:name` is the label's id or its title, as in GitLab's label paths. */
const path = { ...projectPath, name: z.string() };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/labels/:name", {
  GET: endpoint({
    response: okWith(projectLabelEntity),
    scopes: readApiScopes,
    path,
    handle: async ({ ctx, path }) => json(serializeProjectLabel(await getLabel(ctx, path.id, path.name))),
  }),
  PUT: endpoint({
    response: okWith(projectLabelEntity),
    scopes: writeApiScopes,
    path,
    params: labelUpdateParams,
    handle: async ({ ctx, path, params }) => json(serializeProjectLabel(await updateLabel(ctx, path.id, path.name, labelChangesFrom(params)))),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteLabel(ctx, path.id, path.name);
      return noContent();
    },
  }),
});
