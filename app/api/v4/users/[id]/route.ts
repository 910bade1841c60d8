import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readUserScopes, writeApiScopes } from "@/lib/api/scopes";
import { updateUserAsAdmin } from "@/lib/users/admin";
import { profileOf, profileParams } from "@/lib/users/api";
import { scheduleUserDeletion } from "@/lib/users/deletion";
import { serializeUser, userEntity, userWithPrivateFieldsEntity } from "@/lib/users/serialize";
import { canSeePrivateFields, getUser, requireAdmin } from "@/lib/users/users";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const path = { id: idSegment };

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/users/:id", {
  GET: endpoint({
    response: okWith(userEntity),
    scopes: readUserScopes,
    allowAnonymous: true,
    path,
    handle: async ({ ctx, path }) => {
      const user = await getUser(ctx, path.id);
      return json(serializeUser(user, { includePrivate: canSeePrivateFields(ctx, user) }));
    },
  }),
  PUT: endpoint({
    response: okWith(userWithPrivateFieldsEntity),
    scopes: writeApiScopes,
    // GitLab refuses non-admins before looking at the parameters.
    guard: requireAdmin,
    path,
    params: {
      name: z.string().optional(),
      username: z.string().optional(),
      email: z.string().optional(),
      skip_reconfirmation: booleanParam.optional(),
      password: z.string().optional(),
      admin: booleanParam.optional(),
      ...profileParams,
    },
    handle: async ({ ctx, path, params }) => {
      const user = await updateUserAsAdmin(ctx, path.id, {
        name: params.name,
        username: params.username,
        email: params.email,
        skipReconfirmation: params.skip_reconfirmation,
        password: params.password,
        admin: params.admin,
        ...profileOf(params),
      });
      return json(serializeUser(user, { includePrivate: true }));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    guard: requireAdmin,
    path,
    params: { hard_delete: booleanParam.optional() },
    handle: async ({ ctx, path, params }) => {
      await scheduleUserDeletion(ctx, path.id, { hardDelete: params.hard_delete ?? false });
      return noContent();
    },
  }),
});
