import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { instanceMetadata } from "@/lib/instance/metadata";

/** `GET /metadata` and `GET /version`: signed-in callers only, `read_user` tokens included, as GitLab. */
export function metadataResource(route: string) {
  return apiResource(route, {
    GET: endpoint({ scopes: readUserScopes, handle: async () => json(instanceMetadata()) }),
  });
}
