import { z } from "zod";
import { apiRoute } from "@/lib/api/handler";
import { booleanParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams, readBody, readQuery } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { ParameterError } from "@/lib/errors";
import { getIssue, updateIssue } from "@/lib/issues/issues";
import { serializeIssue } from "@/lib/issues/serialize";

const route = "/projects/:id/issues/:issue_iid";

export const GET = apiRoute({ route, scopes: readApiScopes, allowAnonymous: true }, async ({ ctx, url, params }) => {
  const { issue_iid } = parseParams({ issue_iid: positiveIntegerParam }, { ...readQuery(url), issue_iid: params.issue_iid });
  return json(serializeIssue(await getIssue(ctx, params.id!, issue_iid)));
});

export const PUT = apiRoute({ route, scopes: writeApiScopes }, async ({ ctx, request, url, params }) => {
  const input = parseParams(
    {
      issue_iid: positiveIntegerParam,
      title: z.string().optional(),
      description: z.string().nullable().optional(),
      confidential: booleanParam.optional(),
      state_event: z.enum(["close", "reopen"]).optional(),
    },
    { ...readQuery(url), ...(await readBody(request)), issue_iid: params.issue_iid },
  );
  const { issue_iid, state_event, ...changes } = input;
  if (state_event === undefined && Object.values(changes).every((value) => value === undefined)) {
    throw new ParameterError("title, description, confidential, state_event", "are missing, at least one parameter must be provided");
  }
  return json(serializeIssue(await updateIssue(ctx, params.id!, issue_iid, { ...changes, stateEvent: state_event })));
});

export { routeNotFound as POST, routeNotFound as PATCH, routeNotFound as DELETE } from "@/lib/api/handler";
