import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { instanceMetadata, metadataEntity } from "@/lib/instance/metadata";
import { okWith } from "@/lib/api/responses";

/** `GET /metadata` and `GET /version`: signed-in callers only, `read_user` tokens included, as GitLab. */
export function metadataResource(route: string) {
  return apiResource(route, {
    GET: endpoint({ response: okWith(metadataEntity), scopes: readUserScopes, handle: async () => json(instanceMetadata()) }),
  });
}
