import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import document from "@/docs/openapi.json";
import { okWith } from "@/lib/api/responses";
import { openApiDocumentSchema } from "@/lib/api/openapi";

/**
 * `GET /openapi.json`: the API's OpenAPI document (`docs/openapi.json`, made from the routes' declarations by
 * `npm run openapi`, and held to them by lib/api/openapi.test.ts), to anybody: it says what the API takes, not what
 * anyone holds.
 */
export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/openapi.json", {
  GET: endpoint({ response: okWith(openApiDocumentSchema), scopes: readUserScopes, allowAnonymous: true, handle: async () => json(document) }),
});
