import "server-only";
import { z } from "zod";
import { endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment, projectPath } from "@/lib/api/param-types";
import { created, json, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { listIssues, listIssuesAcrossProjects } from "./issue-list";
import { issueFiltersFrom, issueListParams, issueMetadataFrom, issueMetadataParams, issueTypeParam } from "./issue-params";
import { createIssue, getIssue } from "./issues";
import { createNote, listNotes } from "./notes";
import { issueEntity, noteEntity, serializeIssue, serializeNote } from "./serialize";
import { maxTextRequestBytes } from "./text-limits";
import { createdWith, listOf, okWith } from "@/lib/api/responses";

/**
 * The issue and note endpoints that both the REST API (their route files) and the MCP server's tools serve: one
 * declaration of each, so a tool takes the same parameters, calls the same verb and answers the same JSON.
 */

export const issuePath = { ...projectPath, issue_iid: idSegment };

/** `GET /issues`. */
export const listIssuesAcrossProjectsEndpoint = endpoint({
  response: listOf(issueEntity),
  scopes: readApiScopes,
  // Only `scope=all` is open to anonymous callers; the verb asks the others to sign in.
  allowAnonymous: true,
  paginated: true,
  params: { ...issueListParams, non_archived: booleanParam.optional() },
  handle: async ({ ctx, url, params, page }) => {
    const result = await listIssuesAcrossProjects(ctx, { ...issueFiltersFrom(params), nonArchived: params.non_archived }, page);
    const items = result.items.map((issue) => serializeIssue(issue, ctx.now, { withLabelsDetails: params.with_labels_details }));
    return paginated(url, page, { ...result, items });
  },
});

/** `GET /projects/:id/issues`. */
export const listProjectIssuesEndpoint = endpoint({
  response: listOf(issueEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: projectPath,
  paginated: true,
  params: issueListParams,
  handle: async ({ ctx, url, path, params, page }) => {
    const result = await listIssues(ctx, path.id, issueFiltersFrom(params), page);
    const items = result.items.map((issue) => serializeIssue(issue, ctx.now, { withLabelsDetails: params.with_labels_details }));
    return paginated(url, page, { ...result, items });
  },
});

/** `POST /projects/:id/issues`. */
export const createIssueEndpoint = endpoint({
  response: createdWith(issueEntity),
  scopes: writeApiScopes,
  maxBodyBytes: maxTextRequestBytes,
  path: projectPath,
  params: {
    title: z.string(),
    description: z.string().nullable().optional(),
    confidential: booleanParam.optional(),
    issue_type: issueTypeParam.optional(),
    ...issueMetadataParams,
  },
  handle: async ({ ctx, path, params }) => {
    const issue = await createIssue(ctx, path.id, {
      title: params.title,
      description: params.description,
      confidential: params.confidential,
      issueType: params.issue_type,
      ...issueMetadataFrom(params),
    });
    return created(serializeIssue(issue, ctx.now));
  },
});

/** `GET /projects/:id/issues/:issue_iid`. */
export const getIssueEndpoint = endpoint({
  response: okWith(issueEntity),
  scopes: readApiScopes,
  allowAnonymous: true,
  path: issuePath,
  handle: async ({ ctx, path }) => json(serializeIssue(await getIssue(ctx, path.id, path.issue_iid), ctx.now)),
});

// As on GitLab, every notes endpoint needs a signed-in caller, even for public projects.

/** `GET /projects/:id/issues/:issue_iid/notes`. */
export const listIssueNotesEndpoint = endpoint({
  response: listOf(noteEntity),
  scopes: readApiScopes,
  path: issuePath,
  paginated: true,
  params: {
    order_by: z.enum(["created_at", "updated_at"]).optional(),
    sort: z.enum(["asc", "desc"]).optional(),
    activity_filter: z.enum(["all_notes", "only_comments", "only_activity"]).optional(),
  },
  handle: async ({ ctx, url, path, params, page }) => {
    const options = { orderBy: params.order_by, sort: params.sort, activityFilter: params.activity_filter };
    const result = await listNotes(ctx, path.id, path.issue_iid, options, page);
    return paginated(url, page, { ...result, items: result.items.map(serializeNote) });
  },
});

/** `POST /projects/:id/issues/:issue_iid/notes`. */
export const createIssueNoteEndpoint = endpoint({
  response: createdWith(noteEntity),
  scopes: writeApiScopes,
  maxBodyBytes: maxTextRequestBytes,
  path: issuePath,
  // `confidential` is GitLab's older name for `internal`.
  params: { body: z.string(), internal: booleanParam.optional(), confidential: booleanParam.optional() },
  handle: async ({ ctx, path, params }) => {
    const note = await createNote(ctx, path.id, path.issue_iid, { body: params.body, internal: params.internal ?? params.confidential });
    return created(serializeNote(note));
  },
});
