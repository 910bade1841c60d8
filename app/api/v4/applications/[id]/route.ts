import { apiRoute } from "@/lib/api/handler";
import { booleanParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { deleteApplicationAsAdmin, updateApplicationSettings } from "@/lib/oauth/applications";
import { serializeApplication } from "@/lib/oauth/serialize";

export const DELETE = apiRoute({ route: "/applications/:id", scopes: writeApiScopes }, async ({ ctx, url, params }) => {
  const { id } = parseParams({ id: positiveIntegerParam }, { ...readQuery(url), id: params.id });
  await deleteApplicationAsAdmin(ctx, id);
  return noContent();
});

/** Admin switches beyond GitLab's API: `trusted` (skip consent) and `implicit_grant_enabled` (deprecated flow). */
export const PUT = apiRoute({ route: "/applications/:id", scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { id: positiveIntegerParam, trusted: booleanParam.optional(), implicit_grant_enabled: booleanParam.optional() },
    { ...readQuery(url), ...(await readBody(request)), id: params.id },
  );
  const application = await updateApplicationSettings(ctx, input.id, {
    trusted: input.trusted,
    implicitGrantEnabled: input.implicit_grant_enabled,
  });
  return json({ ...serializeApplication(application), trusted: application.trusted, implicit_grant_enabled: application.implicitGrantEnabled });
});

export { routeNotFound as GET, routeNotFound as POST, routeNotFound as PATCH } from "@/lib/api/handler";
