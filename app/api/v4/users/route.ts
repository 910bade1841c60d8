import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { keysetHeaders } from "@/lib/api/pagination";
import { booleanParam, dateTimeParam, keysetPaginationParams, searchParam } from "@/lib/api/param-types";
import { created, json, paginated } from "@/lib/api/respond";
import { readUserScopes, writeApiScopes } from "@/lib/api/scopes";
import { profileOf, profileParams } from "@/lib/users/api";
import { serializeUser, userEntity, userWithPrivateFieldsEntity } from "@/lib/users/serialize";
import { canSeePrivateFields, createUserAsAdmin, listUsers, listUsersByKeyset, requireAdmin, userOrderFields, type UserRow } from "@/lib/users/users";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/users", {
  GET: endpoint({
    response: listOf(userEntity),
    scopes: readUserScopes,
    allowAnonymous: true,
    paginated: { keysetType: "User" },
    params: {
      ...keysetPaginationParams,
      cursor: z.string().optional(),
      username: z.string().optional(),
      search: searchParam.optional(),
      active: booleanParam.optional(),
      blocked: booleanParam.optional(),
      external: booleanParam.optional(),
      created_after: dateTimeParam.optional(),
      created_before: dateTimeParam.optional(),
      order_by: z.enum(userOrderFields).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
    },
    handle: async ({ ctx, url, params, page }) => {
      const filter = {
        username: params.username,
        search: params.search,
        active: params.active,
        blocked: params.blocked,
        external: params.external,
        createdAfter: params.created_after,
        createdBefore: params.created_before,
        orderBy: params.order_by,
        sort: params.sort,
      };
      const entity = (user: UserRow) => serializeUser(user, { includePrivate: canSeePrivateFields(ctx, user) });
      if (params.pagination === "keyset") {
        const { items, nextCursor } = await listUsersByKeyset(ctx, filter, page.perPage, params.cursor);
        return json(items.map(entity), 200, keysetHeaders(url, page.perPage, nextCursor === null ? null : { cursor: nextCursor }));
      }
      const result = await listUsers(ctx, filter, page);
      return paginated(url, page, { ...result, items: result.items.map(entity) });
    },
  }),
  POST: endpoint({
    response: createdWith(userWithPrivateFieldsEntity),
    scopes: writeApiScopes,
    // GitLab refuses non-admins before looking at the parameters.
    guard: requireAdmin,
    params: {
      email: z.string(),
      username: z.string(),
      name: z.string(),
      password: z.string(),
      skip_confirmation: booleanParam.optional(),
      admin: booleanParam.optional(),
      ...profileParams,
    },
    handle: async ({ ctx, params }) => {
      const user = await createUserAsAdmin(ctx, {
        email: params.email,
        username: params.username,
        name: params.name,
        password: params.password,
        isAdmin: params.admin ?? false,
        skipConfirmation: params.skip_confirmation ?? false,
        ...profileOf(params),
      });
      return created(serializeUser(user, { includePrivate: true }));
    },
  }),
});
