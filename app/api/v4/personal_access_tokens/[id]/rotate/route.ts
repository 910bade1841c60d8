import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { rotatePersonalAccessToken, serializePersonalAccessToken, personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";
import { rotationParams } from "./rotation-params";
import { okWith } from "@/lib/api/responses";

/** GitLab answers a rotation with 200 and the new token, shown this once. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/:id/rotate", {
  POST: endpoint({
    response: okWith(personalAccessTokenEntity),
    scopes: writeApiScopes,
    path: { id: idSegment },
    params: rotationParams,
    handle: async ({ ctx, path, params }) =>
      json(serializePersonalAccessToken(await rotatePersonalAccessToken(ctx, path.id, { expiresAt: params.expires_at }), ctx.now)),
  }),
});
