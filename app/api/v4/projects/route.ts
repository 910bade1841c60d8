import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, positiveIntegerParam } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { listProjectsEndpoint } from "@/lib/projects/endpoints";
import { createProject, projectVisibilities } from "@/lib/projects/projects";
import { serializeCreatedProject, projectEntity } from "@/lib/projects/serialize";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects", {
  GET: listProjectsEndpoint,
  POST: endpoint({
    response: createdWith(projectEntity),
    scopes: writeApiScopes,
    params: {
      name: z.string().optional(),
      path: z.string().optional(),
      description: z.string().max(2000).optional(),
      visibility: z.enum(projectVisibilities).optional(),
      issues_enabled: booleanParam.optional(),
      initialize_with_readme: booleanParam.optional(),
      namespace_id: positiveIntegerParam.optional(),
    },
    handle: async ({ ctx, params }) => {
      if (params.name === undefined && params.path === undefined) {
        throw new ParameterError("name, path", "are missing, at least one parameter must be provided");
      }
      const view = await createProject(ctx, {
        name: params.name,
        path: params.path,
        description: params.description,
        visibility: params.visibility,
        issuesEnabled: params.issues_enabled,
        initializeWithReadme: params.initialize_with_readme,
        namespaceId: params.namespace_id,
      });
      return created(serializeCreatedProject(view));
    },
  }),
});
