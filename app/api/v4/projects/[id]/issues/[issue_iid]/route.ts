import { z } from "zod";
import { apiResource, endpoint } from "@/lib/api/endpoint";
import { booleanParam, stringListParam } from "@/lib/api/param-types";
import { requireAtLeastOne } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import { getIssueEndpoint, issuePath as path } from "@/lib/issues/endpoints";
import { issueMetadataFrom, issueMetadataParams } from "@/lib/issues/issue-params";
import { deleteIssue, updateIssue } from "@/lib/issues/issues";
import { serializeIssue, issueEntity } from "@/lib/issues/serialize";
import { maxTextRequestBytes } from "@/lib/issues/text-limits";
import { noContentAnswer, okWith } from "@/lib/api/responses";

const updateParams = {
  title: z.string().optional(),
  description: z.string().nullable().optional(),
  confidential: booleanParam.optional(),
  state_event: z.enum(["close", "reopen"]).optional(),
  add_labels: stringListParam.optional(),
  remove_labels: stringListParam.optional(),
  ...issueMetadataParams,
};

/** GitLab's `at_least_one_of` for this endpoint, in its order, limited to the parameters this service takes. */
const updatableParams = [
  "assignee_id",
  "assignee_ids",
  "confidential",
  "description",
  "due_date",
  "labels",
  "add_labels",
  "remove_labels",
  "milestone_id",
  "state_event",
  "title",
] as const satisfies readonly (keyof typeof updateParams)[];

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id/issues/:issue_iid", {
  GET: getIssueEndpoint,
  PUT: endpoint({
    response: okWith(issueEntity),
    scopes: writeApiScopes,
    maxBodyBytes: maxTextRequestBytes,
    path,
    params: updateParams,
    handle: async ({ ctx, path, params }) => {
      requireAtLeastOne(params, updatableParams);
      const issue = await updateIssue(ctx, path.id, path.issue_iid, {
        title: params.title,
        description: params.description,
        confidential: params.confidential,
        stateEvent: params.state_event,
        addLabels: params.add_labels,
        removeLabels: params.remove_labels,
        ...issueMetadataFrom(params),
      });
      return json(serializeIssue(issue, ctx.now));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path,
    handle: async ({ ctx, path }) => {
      await deleteIssue(ctx, path.id, path.issue_iid);
      return noContent();
    },
  }),
});
