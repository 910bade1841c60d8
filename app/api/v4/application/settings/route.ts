import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { getInstanceSettings, serializeApplicationSettings, updateInstanceSettings, applicationSettingsEntity } from "@/lib/instance/settings";
import { requireAdmin } from "@/lib/users/users";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/application/settings", {
  GET: endpoint({
    response: okWith(applicationSettingsEntity),
    scopes: readApiScopes,
    guard: requireAdmin,
    handle: async ({ ctx }) => json(serializeApplicationSettings(await getInstanceSettings(ctx))),
  }),
  /** Changes the attributes sent; the others, and attributes this service does not have, are left alone. */
  PUT: endpoint({
    response: okWith(applicationSettingsEntity),
    scopes: writeApiScopes,
    guard: requireAdmin,
    params: {
      allow_local_requests_from_web_hooks_and_services: booleanParam.optional(),
      /** The setting's name before GitLab 12.2, which GitLab still takes; given both, it wins, as on GitLab. */
      allow_local_requests_from_hooks_and_services: booleanParam.optional(),
      oauth_authorization_response_iss: booleanParam.optional(),
      can_create_group: booleanParam.optional(),
    },
    handle: async ({ ctx, params }) => {
      const allowLocal = params.allow_local_requests_from_hooks_and_services ?? params.allow_local_requests_from_web_hooks_and_services;
      const settings = await updateInstanceSettings(ctx, {
        ...(allowLocal !== undefined ? { allowLocalRequestsFromWebHooksAndServices: allowLocal } : {}),
        ...(params.oauth_authorization_response_iss !== undefined ? { oauthAuthorizationResponseIss: params.oauth_authorization_response_iss } : {}),
        ...(params.can_create_group !== undefined ? { canCreateGroup: params.can_create_group } : {}),
      });
      return json(serializeApplicationSettings(settings));
    },
  }),
});
