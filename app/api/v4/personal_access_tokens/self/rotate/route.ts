import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { rotateCurrentPersonalAccessToken, serializePersonalAccessToken, personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";
import { rotationParams } from "../../[id]/rotate/rotation-params";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/personal_access_tokens/self/rotate", {
  POST: endpoint({
    response: okWith(personalAccessTokenEntity),
    scopes: writeApiScopes,
    params: rotationParams,
    handle: async ({ ctx, params }) =>
      json(serializePersonalAccessToken(await rotateCurrentPersonalAccessToken(ctx, { expiresAt: params.expires_at }), ctx.now)),
  }),
});
