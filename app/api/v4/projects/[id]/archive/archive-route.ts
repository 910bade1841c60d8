import { apiResource, endpoint } from "@/lib/api/endpoint";
import { projectPath } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { serializeProject, projectEntity } from "@/lib/projects/serialize";
import { setProjectArchived } from "@/lib/projects/settings";
import { createdWith } from "@/lib/api/responses";

/** `POST /projects/:id/archive` and `/unarchive` (Owners): 201 with the project, as GitLab's POSTs answer. */
export function archiveResource(route: string, archived: boolean) {
  return apiResource(route, {
    POST: endpoint({
      response: createdWith(projectEntity),
      scopes: writeApiScopes,
      path: projectPath,
      handle: async ({ ctx, path }) => created(serializeProject(await setProjectArchived(ctx, path.id, archived))),
    }),
  });
}
