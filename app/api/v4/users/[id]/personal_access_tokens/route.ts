import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { dateParam, idSegment, stringListParam } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { knownScopes, writeApiScopes } from "@/lib/api/scopes";
import { createPersonalAccessTokenAsAdmin, serializePersonalAccessToken, personalAccessTokenEntity } from "@/lib/users/personal-access-tokens";
import { requireAdmin } from "@/lib/users/users";
import { createdWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/users/:user_id/personal_access_tokens", {
  POST: endpoint({
    response: createdWith(personalAccessTokenEntity),
    scopes: writeApiScopes,
    guard: requireAdmin,
    path: { id: idSegment },
    params: {
      name: z.string(),
      scopes: stringListParam.pipe(z.array(z.enum(knownScopes)).min(1)),
      expires_at: dateParam.nullable().optional(),
    },
    handle: async ({ ctx, path, params }) => {
      const issued = await createPersonalAccessTokenAsAdmin(ctx, path.id, {
        name: params.name,
        scopes: params.scopes,
        expiresAt: params.expires_at,
      });
      return created(serializePersonalAccessToken(issued, ctx.now));
    },
  }),
});
