import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { dateParam, positiveIntegerParam, stringListParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created } from "@/lib/api/respond";
import { knownScopes, writeApiScopes } from "@/lib/api/scopes";
import { createPersonalAccessTokenAsAdmin, serializePersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { requireAdmin } from "@/lib/users/users";

export const POST = apiRoute(
  { route: "/users/:user_id/personal_access_tokens", scopes: writeApiScopes },
  async ({ ctx, request, url, params }) => {
    // GitLab refuses non-admins before looking at the parameters.
    requireAdmin(ctx);
    const input = parseParams(
      {
        user_id: positiveIntegerParam,
        name: z.string(),
        scopes: stringListParam.pipe(z.array(z.enum(knownScopes)).min(1)),
        expires_at: dateParam.nullable().optional(),
      },
      { ...readQuery(url), ...(await readBody(request)), user_id: params.id },
    );
    const issued = await createPersonalAccessTokenAsAdmin(ctx, input.user_id, {
      name: input.name,
      scopes: input.scopes,
      expiresAt: input.expires_at,
    });
    return created(serializePersonalAccessToken(issued, ctx.now));
  },
);

// Methods this path does not serve get GitLab's JSON 404, as unknown paths do.
export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
