import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, integerParam, projectPath, searchParam } from "@/lib/api/param-types";
import { created, json, noContent, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { labelChangesFrom, labelNamedBy, labelUpdateParams } from "@/lib/issues/label-params";
import { createLabel, deleteLabel, listLabels, updateLabel } from "@/lib/issues/labels";
import { serializeProjectLabel, projectLabelEntity } from "@/lib/issues/serialize";
import { createdWith, listOf, noContentAnswer, okWith } from "@/lib/api/responses";

const labelNaming = { label_id: integerParam.optional(), name: z.string().optional() };

// As on GitLab, the labels API needs a signed-in caller, even for public projects.
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/labels", {
  GET: endpoint({
    response: listOf(projectLabelEntity),
    scopes: readApiScopes,
    path: projectPath,
    paginated: true,
    params: { with_counts: booleanParam.optional(), search: searchParam.optional() },
    handle: async ({ ctx, url, path, params, page }) => {
      const result = await listLabels(ctx, path.id, { search: params.search, withCounts: params.with_counts }, page);
      return paginated(url, page, { ...result, items: result.items.map(serializeProjectLabel) });
    },
  }),
  POST: endpoint({
    response: createdWith(projectLabelEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: { name: z.string(), color: z.string(), description: z.string().nullable().optional() },
    handle: async ({ ctx, path, params }) => created(serializeProjectLabel(await createLabel(ctx, path.id, params))),
  }),
  // The older forms, which name the label in the body (python-gitlab's `label.save()` uses this one).
  PUT: endpoint({
    response: okWith(projectLabelEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: { ...labelNaming, ...labelUpdateParams },
    handle: async ({ ctx, path, params }) =>
      json(serializeProjectLabel(await updateLabel(ctx, path.id, labelNamedBy(params), labelChangesFrom(params)))),
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path: projectPath,
    params: labelNaming,
    handle: async ({ ctx, path, params }) => {
      await deleteLabel(ctx, path.id, labelNamedBy(params));
      return noContent();
    },
  }),
});
