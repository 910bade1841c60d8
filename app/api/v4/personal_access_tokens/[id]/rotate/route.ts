import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { rotatePersonalAccessToken, serializePersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { rotationParams } from "./rotation-params";

/** GitLab answers a rotation with 200 and the new token, shown this once. */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/:id/rotate", {
  POST: endpoint({
    scopes: writeApiScopes,
    path: { id: idSegment },
    params: rotationParams,
    handle: async ({ ctx, path, params }) =>
      json(serializePersonalAccessToken(await rotatePersonalAccessToken(ctx, path.id, { expiresAt: params.expires_at }), ctx.now)),
  }),
});
