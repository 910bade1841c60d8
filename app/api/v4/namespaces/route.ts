import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, searchParam } from "@/lib/api/param-types";
import { paginated } from "@/lib/api/respond";
import { readApiScopes } from "@/lib/api/scopes";
import { listNamespaces } from "@/lib/groups/namespaces";
import { serializeNamespace, namespaceEntity } from "@/lib/groups/serialize";
import { listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/namespaces", {
  GET: endpoint({
    response: listOf(namespaceEntity),
    scopes: readApiScopes,
    paginated: true,
    params: { search: searchParam.optional(), owned_only: booleanParam.optional() },
    handle: async ({ ctx, url, params, page }) => {
      const list = await listNamespaces(ctx, { search: params.search, ownedOnly: params.owned_only }, page);
      return paginated(url, page, { ...list, items: list.items.map(serializeNamespace) });
    },
  }),
});
