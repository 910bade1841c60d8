import { apiRoute } from "@/lib/api/handler";
import { positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readQuery } from "@/lib/api/request";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { renewApplicationSecretAsAdmin } from "@/lib/oauth/applications";
import { serializeApplication } from "@/lib/oauth/serialize";

export const POST = apiRoute({ route: "/applications/:id/renew-secret", scopes: writeApiScopes }, async ({ ctx, url, params }) => {
  const { id } = parseParams({ id: positiveIntegerParam }, { ...readQuery(url), id: params.id });
  const { application, secret } = await renewApplicationSecretAsAdmin(ctx, id);
  return created(serializeApplication(application, secret));
});

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
