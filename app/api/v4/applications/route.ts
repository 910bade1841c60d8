import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, stringListParam } from "@/lib/api/param-types";
import { created, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { createApplicationAsAdmin, listAllApplications } from "@/lib/oauth/applications";
import { serializeApplication, applicationEntity } from "@/lib/oauth/serialize";
import { createdWith, listOf } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/applications", {
  GET: endpoint({
    response: listOf(applicationEntity),
    scopes: readApiScopes,
    paginated: true,
    handle: async ({ ctx, url, page }) => {
      const list = await listAllApplications(ctx, page);
      return paginated(url, page, { ...list, items: list.items.map((application) => serializeApplication(application)) });
    },
  }),
  POST: endpoint({
    response: createdWith(applicationEntity),
    scopes: writeApiScopes,
    params: {
      name: z.string(),
      redirect_uri: z.string(),
      // GitLab takes scopes space-separated; arrays and commas are accepted too.
      scopes: z.union([z.string().transform((value) => value.split(/[\s,]+/).filter(Boolean)), stringListParam]),
      confidential: booleanParam.optional(),
    },
    handle: async ({ ctx, params }) => {
      const { application, secret } = await createApplicationAsAdmin(ctx, {
        name: params.name,
        redirectUri: params.redirect_uri,
        scopes: params.scopes,
        confidential: params.confidential,
      });
      return created(serializeApplication(application, secret));
    },
  }),
});
