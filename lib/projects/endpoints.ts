import "server-only";
import { endpoint } from "@/lib/api/endpoint";
import { booleanParam, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listedProjectEntity, projectListAnswer, projectListParams } from "./api";
import { getProjectDetails, listProjectDetails } from "./projects";
import { projectAsListedEntity } from "./serialize";
import { listOf, okWith } from "@/lib/api/responses";

/**
 * The project endpoints that both the REST API (their route files) and the MCP server's tools serve: one declaration
 * of each, so a tool takes the same parameters, calls the same verb and answers the same JSON.
 */

/** `GET /projects`. */
export const listProjectsEndpoint = endpoint({
  response: listOf(projectAsListedEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  paginated: { keysetType: "Project" },
  params: projectListParams,
  handle: async ({ ctx, url, params, page }) =>
    projectListAnswer(ctx, { url, page, params }, (filters, paging, options) => listProjectDetails(ctx, filters, paging, options)),
});

/** `GET /projects/:id`. */
export const getProjectEndpoint = endpoint({
  response: okWith(projectAsListedEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: projectPath,
  params: { statistics: booleanParam.optional() },
  handle: async ({ ctx, path, params }) => json(listedProjectEntity(ctx, await getProjectDetails(ctx, path.id, { statistics: params.statistics }))),
});
