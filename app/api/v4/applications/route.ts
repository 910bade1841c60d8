import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { booleanParam, stringListParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created, json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createApplicationAsAdmin, listAllApplications } from "@/lib/oauth/applications";
import { serializeApplication } from "@/lib/oauth/serialize";

export const GET = apiRoute({ route: "/applications", scopes: readApiScopes }, async ({ ctx, url }) => {
  parseParams({}, readQuery(url));
  return json((await listAllApplications(ctx)).map((application) => serializeApplication(application)));
});

export const POST = apiRoute({ route: "/applications", scopes: writeApiScopes }, async ({ ctx, request, url }) => {
  const params = parseParams(
    {
      name: z.string(),
      redirect_uri: z.string(),
      // GitLab takes scopes space-separated; arrays and commas are accepted too.
      scopes: z.union([z.string().transform((value) => value.split(/[\s,]+/).filter(Boolean)), stringListParam]),
      confidential: booleanParam.optional(),
    },
    { ...readQuery(url), ...(await readBody(request)) },
  );
  const { application, secret } = await createApplicationAsAdmin(ctx, {
    name: params.name,
    redirectUri: params.redirect_uri,
    scopes: params.scopes,
    confidential: params.confidential,
  });
  return created(serializeApplication(application, secret));
});

export { routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
