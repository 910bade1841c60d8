import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { booleanParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { createNote } from "@/lib/issues/notes";
import { serializeNote } from "@/lib/issues/serialize";

export const POST = apiRoute({ route: "/projects/:id/issues/:issue_iid/notes", scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    { issue_iid: positiveIntegerParam, body: z.string(), internal: booleanParam.optional(), confidential: booleanParam.optional() },
    { ...readQuery(url), ...(await readBody(request)), issue_iid: params.issue_iid },
  );
  const note = await createNote(ctx, params.id!, input.issue_iid, { body: input.body, internal: input.internal ?? input.confidential });
  return created(serializeNote(note));
});

export { routeNotFound as GET, routeNotFound as PUT, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
