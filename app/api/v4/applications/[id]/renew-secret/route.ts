import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { renewApplicationSecretAsAdmin } from "@/lib/oauth/applications";
import { serializeApplication, applicationEntity } from "@/lib/oauth/serialize";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/applications/:id/renew-secret", {
  POST: endpoint({
    response: createdWith(applicationEntity),
    scopes: writeApiScopes,
    path: { id: idSegment },
    handle: async ({ ctx, path }) => {
      const { application, secret } = await renewApplicationSecretAsAdmin(ctx, path.id);
      return created(serializeApplication(application, secret));
    },
  }),
});
