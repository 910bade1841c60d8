import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, projectPath } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { getProjectEndpoint } from "@/lib/projects/endpoints";
import { projectVisibilities } from "@/lib/projects/projects";
import { serializeProject, projectEntity } from "@/lib/projects/serialize";
import { deleteProject, updateProject } from "@/lib/projects/settings";
import { acceptedMessage, okWith } from "@/lib/api/responses";

const updateParams = {
  name: z.string().optional(),
  path: z.string().optional(),
  description: z.string().optional(),
  visibility: z.enum(projectVisibilities).optional(),
  default_branch: z.string().optional(),
  issues_enabled: booleanParam.optional(),
};

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id", {
  GET: getProjectEndpoint,
  PUT: endpoint({
    response: okWith(projectEntity),
    scopes: writeApiScopes,
    path: projectPath,
    params: updateParams,
    handle: async ({ ctx, path, params }) => {
      // GitLab's `at_least_one_of` over the parameters it updates.
      if (Object.keys(updateParams).every((name) => params[name as keyof typeof updateParams] === undefined)) {
        throw new ParameterError(Object.keys(updateParams).join(", "), "are missing, at least one parameter must be provided");
      }
      const details = await updateProject(ctx, path.id, {
        name: params.name,
        path: params.path,
        description: params.description,
        visibility: params.visibility,
        defaultBranch: params.default_branch,
        issuesEnabled: params.issues_enabled,
      });
      return json(serializeProject(details));
    },
  }),
  DELETE: endpoint({
    response: acceptedMessage,
    scopes: writeApiScopes,
    path: projectPath,
    handle: async ({ ctx, path }) => {
      await deleteProject(ctx, path.id);
      // GitLab deletes projects in the background and says so; here the project is already gone.
      return json({ message: "202 Accepted" }, 202);
    },
  }),
});
