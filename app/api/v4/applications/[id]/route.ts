import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { deleteApplicationAsAdmin, updateApplicationSettings } from "@/lib/oauth/applications";
import { serializeApplication, applicationWithSettingsEntity } from "@/lib/oauth/serialize";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/applications/:id", {
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteApplicationAsAdmin(ctx, path.id);
      return noContent();
    },
  }),
  /** Admin switches beyond GitLab's API: `trusted` (skip consent) and `implicit_grant_enabled` (deprecated flow). */
  PUT: endpoint({
    response: okWith(applicationWithSettingsEntity),
    scopes: writeApiScopes,
    path,
    params: { trusted: booleanParam.optional(), implicit_grant_enabled: booleanParam.optional() },
    handle: async ({ ctx, path, params }) => {
      const application = await updateApplicationSettings(ctx, path.id, {
        trusted: params.trusted,
        implicitGrantEnabled: params.implicit_grant_enabled,
      });
      return json({ ...serializeApplication(application), trusted: application.trusted, implicit_grant_enabled: application.implicitGrantEnabled });
    },
  }),
});
