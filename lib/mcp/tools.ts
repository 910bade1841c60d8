import "server-only";
import { z } from "zod";
import { getAlertEndpoint, listAlertsEndpoint, updateAlertEndpoint } from "@/lib/alerts/endpoints";
import { checkedAnswer, parameterShapeOf, prepareCall, type ApiMethod, type Endpoint } from "@/lib/api/endpoint";
import { renderError } from "@/lib/api/handler";
import { paginationParams, searchParam, stringListParam } from "@/lib/api/param-types";
import { maxApiBodyBytes, parseParams } from "@/lib/api/request";
import { readApiScopes, type Scope } from "@/lib/api/scopes";
import type { Actor, Ctx } from "@/lib/context";
import { env } from "@/lib/env";
import { BadRequestError, InsufficientScopeError, NotFoundError, ParameterError } from "@/lib/errors";
import { listProjectEventsEndpoint } from "@/lib/events/endpoints";
import type { Answer } from "@/lib/http/answer";
import { instanceMetadata } from "@/lib/instance/metadata";
import {
  createIssueEndpoint,
  createIssueNoteEndpoint,
  getIssueEndpoint,
  listIssueNotesEndpoint,
  listIssuesAcrossProjectsEndpoint,
  listProjectIssuesEndpoint,
} from "@/lib/issues/endpoints";
import { issueListParams } from "@/lib/issues/issue-params";
import { getProjectEndpoint, listProjectsEndpoint } from "@/lib/projects/endpoints";
import { errorCodes, JsonRpcError } from "./protocol";
import { asToolPathSegment, pathSegmentsFrom, toolInputSchema, type ToolInputSchema } from "./tool-schema";
import { createWorkItemNote, getWorkItemNotes } from "./work-item-notes";

/**
 * The MCP server's tools. Most are REST endpoints, declared once in `lib/<domain>/endpoints.ts` and served both by
 * their route files and here, as GitLab builds its tools from its API's routes: a tool names the parameters of its
 * endpoint it takes, its input schema is written from the endpoint's own zod declarations, a call is parsed and run
 * by the same code with the same context (so the same caller gets the same refusal), and the answer is the JSON the
 * REST API would have sent.
 */

/** What `tools/call` answers: https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** Hints clients show people before a call (MCP 2025-03-26 on). */
interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** A token needs one of these, or `mcp` (every tool); null: any token the server accepts. */
  scopes: readonly Scope[] | null;
  inputSchema(): ToolInputSchema;
  call(ctx: Ctx, args: Record<string, unknown>): Promise<ToolResult>;
}

/** Descriptions of the parameters several tools share. */
const commonDescriptions = {
  id: "ID or URL-encoded path of the project, such as 42 or my-group/my-project.",
  issue_iid: "Internal ID of the issue within its project (the number shown as #N).",
  alert_iid: "Internal ID of the alert within its project.",
  page: "Page number, from 1.",
  per_page: "Items per page (default 20, at most 100).",
  sort: "Sort order: asc or desc (default desc).",
} satisfies Record<string, string>;

/** An endpoint as a tool calls it: the endpoint, and the method and route its route file serves it at. */
interface RouteOf {
  method: ApiMethod;
  route: string;
  endpoint: Endpoint;
}

/**
 * Runs an endpoint for a tool as its route file runs it for a request: the token's scopes, the endpoint's guard, its
 * path segments and parameters parsed by its declarations, then its handler, with the URL the request would have had.
 * Arguments are held to the size the endpoint reads bodies up to.
 */
async function callEndpoint(ctx: Ctx, { method, route, endpoint }: RouteOf, args: Record<string, unknown>): Promise<Answer> {
  requireScopes(ctx.actor, endpoint.scopes);
  endpoint.guard?.(ctx);
  const limit = endpoint.maxBodyBytes ?? maxApiBodyBytes;
  if (Buffer.byteLength(JSON.stringify(args)) > limit) throw new BadRequestError(`400 Bad request - the request body is larger than ${limit} bytes`);
  const pathNames = Object.keys(endpoint.path ?? {});
  const segments = pathSegmentsFrom(args, pathNames);
  const input = Object.fromEntries(Object.entries(args).filter(([name]) => !pathNames.includes(name)));
  const prepared = prepareCall(endpoint, segments, input);
  const path = route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(segments[name] ?? "")));
  const url = new URL(`${env.EXTERNAL_URL}/api/v4${path}`);
  return checkedAnswer(`${method} ${route}`, endpoint.response, await endpoint.handle({ ctx, request: new Request(url), url, ...prepared }));
}

/** The `insufficient_scope` refusal the REST API gives a token without the endpoint's scopes; `mcp` opens every tool. */
function requireScopes(actor: Actor, scopes: readonly Scope[]): void {
  if (!mayUse(actor, scopes)) throw new InsufficientScopeError(scopes);
}

function mayUse(actor: Actor, scopes: readonly Scope[] | null): boolean {
  if (actor.kind !== "user" || actor.scopes === null || scopes === null) return true;
  return actor.scopes.has("mcp") || scopes.some((scope) => actor.scopes!.has(scope));
}

/** Whether a caller's token may use `tool`; `tools/list` shows a token only these. */
export function toolAvailableTo(actor: Actor, tool: McpTool): boolean {
  return mayUse(actor, tool.scopes);
}

/**
 * A REST answer as a tool's result, as GitLab's API tools shape it: the body as text, and as structured content (an
 * object as it is, a list as `items` with a count and whether another page follows). A refusal is an error result
 * with the REST error's message, so the model can read it and try again.
 */
export function toolResultOf(answer: Answer): ToolResult {
  const text = answer.body ?? "";
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    // Every tool's endpoint answers JSON; a text answer is passed on as it is.
  }
  if (answer.status >= 400) {
    return { content: [{ type: "text", text: errorMessageOf(parsed, answer.status) }], structuredContent: { error: parsed ?? { body: text } }, isError: true };
  }
  return { content: [{ type: "text", text }], structuredContent: structured(parsed, answer.headers), isError: false };
}

function structured(parsed: unknown, headers: Record<string, string>): Record<string, unknown> {
  if (Array.isArray(parsed)) {
    const hasMore = (headers["X-Next-Page"] ?? "") !== "" || /rel="next"/.test(headers.Link ?? "");
    return { items: parsed, metadata: { count: parsed.length, has_more: hasMore } };
  }
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

/** GitLab's error bodies: `{"error": …}` (with an OAuth-style description) or `{"message": …}`. */
function errorMessageOf(body: unknown, status: number): string {
  if (typeof body !== "object" || body === null) return `HTTP ${status}`;
  const { error, error_description: description, message } = body as Record<string, unknown>;
  if (typeof error === "string") return typeof description === "string" ? `${error}: ${description}` : error;
  if (typeof message === "string") return message;
  if (message !== undefined) return JSON.stringify(message);
  return `HTTP ${status}`;
}

interface ApiToolDeclaration extends RouteOf {
  name: string;
  title: string;
  description: string;
  /** The endpoint's parameters (path segments included) the tool takes, in the order the schema lists them. */
  params: readonly string[];
  /** What each parameter means, beyond `commonDescriptions`. */
  descriptions?: Readonly<Record<string, string>>;
  destructive?: boolean;
  idempotent?: boolean;
}

/** A tool that is one REST endpoint, as GitLab's `route_setting :mcp` makes one. */
function apiTool(declared: ApiToolDeclaration): McpTool & { target: RouteOf; params: readonly string[] } {
  const pathShape = declared.endpoint.path ?? {};
  const paramShape = parameterShapeOf(declared.endpoint);
  let schema: ToolInputSchema | undefined;
  return {
    name: declared.name,
    title: declared.title,
    description: declared.description,
    annotations:
      declared.method === "GET"
        ? { readOnlyHint: true, openWorldHint: false }
        : { readOnlyHint: false, destructiveHint: declared.destructive ?? false, idempotentHint: declared.idempotent ?? false, openWorldHint: false },
    scopes: declared.endpoint.scopes,
    target: declared,
    params: declared.params,
    inputSchema() {
      schema ??= toolInputSchema(
        Object.fromEntries(
          declared.params.map((name) => {
            const segment = pathShape[name];
            const param = segment ? asToolPathSegment(segment) : paramShape[name];
            if (!param) throw new Error(`${declared.name}: ${declared.method} ${declared.route} declares no parameter ${name}`);
            return [name, param];
          }),
        ),
        { ...commonDescriptions, ...declared.descriptions },
      );
      return schema;
    },
    async call(ctx, args) {
      const taken = Object.fromEntries(declared.params.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
      return toolResultOf(await callEndpoint(ctx, declared, taken));
    },
  };
}

const getServerVersion: McpTool = {
  name: "get_mcp_server_version",
  title: "Get the MCP server version",
  description: "Get the current version of MCP server.",
  annotations: { readOnlyHint: true, openWorldHint: false },
  scopes: null,
  inputSchema: () => toolInputSchema({}, {}),
  // GitLab answers its own version; this service answers the GitLab release its API is compatible with, as
  // `GET /metadata` does, and its own release as the revision.
  async call() {
    const { version, revision } = instanceMetadata();
    return { content: [{ type: "text", text: version }], structuredContent: { version, revision }, isError: false };
  },
};

const getIssue = apiTool({
  name: "get_issue",
  title: "Get an issue",
  description: "Get a single issue of a project, with its title, description, state, labels, assignees and links.",
  method: "GET",
  route: "/projects/:id/issues/:issue_iid",
  endpoint: getIssueEndpoint,
  params: ["id", "issue_iid"],
});

const createIssue = apiTool({
  name: "create_issue",
  title: "Create an issue",
  description: "Create a new issue in a project.",
  method: "POST",
  route: "/projects/:id/issues",
  endpoint: createIssueEndpoint,
  params: ["id", "title", "description", "assignee_ids", "milestone_id", "labels", "confidential"],
  descriptions: {
    title: "Title of the issue.",
    description: "Description of the issue, in Markdown (at most 1,048,576 characters).",
    assignee_ids: "IDs of the users to assign the issue to.",
    milestone_id: "ID of the project milestone to assign the issue to.",
    labels: "Label names, as an array or comma-separated; labels that do not exist yet are created.",
    confidential: "Whether the issue is confidential (seen only by Reporters and above and its author). Default false.",
  },
});

const listIssueNotes = apiTool({
  name: "get_issue_notes",
  title: "List an issue's comments",
  description: "List the comments (notes) of an issue, system notes included, a page at a time.",
  method: "GET",
  route: "/projects/:id/issues/:issue_iid/notes",
  endpoint: listIssueNotesEndpoint,
  params: ["id", "issue_iid", "order_by", "sort", "activity_filter", "page", "per_page"],
  descriptions: {
    order_by: "Order by created_at (default) or updated_at.",
    activity_filter: "all_notes (default), only_comments, or only_activity (system notes).",
  },
});

const createIssueNote = apiTool({
  name: "create_issue_note",
  title: "Comment on an issue",
  description: "Add a comment (note) to an issue.",
  method: "POST",
  route: "/projects/:id/issues/:issue_iid/notes",
  endpoint: createIssueNoteEndpoint,
  params: ["id", "issue_iid", "body", "internal"],
  descriptions: {
    body: "Text of the comment, in Markdown (at most 1,000,000 characters).",
    internal: "Whether the comment is internal, seen only by Reporters and above. Default false.",
  },
});

const listProjectEvents = apiTool({
  name: "list_project_events",
  title: "List a project's activity",
  description: "List the activity events of a project (issues opened and closed, comments, pushes, members joining and leaving), newest first.",
  method: "GET",
  route: "/projects/:id/events",
  endpoint: listProjectEventsEndpoint,
  params: ["id", "action", "target_type", "before", "after", "sort", "page", "per_page"],
  descriptions: {
    action: "Only events of this action.",
    target_type: "Only events whose target is of this type.",
    before: "Only events created before this day (YYYY-MM-DD, exclusive).",
    after: "Only events created after this day (YYYY-MM-DD, exclusive).",
  },
});

const listAlerts = apiTool({
  name: "list_alerts",
  title: "List a project's alerts",
  description: "List the alerts a project's integrations received, newest first.",
  method: "GET",
  route: "/projects/:id/alert_management/alerts",
  endpoint: listAlertsEndpoint,
  params: ["id", "status", "search", "assignee_username", "sort", "page", "per_page"],
  descriptions: {
    status: "Only alerts with these statuses: triggered, acknowledged, resolved, ignored (an array, or comma-separated).",
    search: "Only alerts whose title, description, service, monitoring tool or hosts contain this text.",
    assignee_username: "Only alerts assigned to the user with this username.",
    sort: "started_at_desc (default), started_at_asc, severity_desc or event_count_desc.",
  },
});

const getAlert = apiTool({
  name: "get_alert",
  title: "Get an alert",
  description: "Get a single alert of a project, with its payload.",
  method: "GET",
  route: "/projects/:id/alert_management/alerts/:alert_iid",
  endpoint: getAlertEndpoint,
  params: ["id", "alert_iid"],
});

const updateAlertStatus = apiTool({
  name: "update_alert_status",
  title: "Change an alert's status",
  description:
    "Change the status of an alert (acknowledge it, resolve it, ignore it or trigger it again), its assignee, or both. An alert has one assignee, who must be able to read the project's alerts; an empty list unassigns.",
  method: "PUT",
  route: "/projects/:id/alert_management/alerts/:alert_iid",
  endpoint: updateAlertEndpoint,
  params: ["id", "alert_iid", "status", "assignee_ids", "assignee_usernames"],
  descriptions: {
    status: "The new status.",
    assignee_ids: "The assignee by user id, replacing the alert's (only the first is kept); an empty list unassigns.",
    assignee_usernames: "The assignee by username, replacing the alert's (only the first is kept); an empty list unassigns.",
  },
  idempotent: true,
});

const listProjects = apiTool({
  name: "list_projects",
  title: "List projects",
  description: "List the projects the caller can see, such as those they are a member of (membership: true).",
  method: "GET",
  route: "/projects",
  endpoint: listProjectsEndpoint,
  params: ["search", "membership", "owned", "min_access_level", "visibility", "archived", "order_by", "sort", "simple", "page", "per_page"],
  descriptions: {
    search: "Only projects whose name or path contains this text.",
    membership: "Only projects the caller is a member of.",
    owned: "Only projects the caller owns.",
    min_access_level: "Only projects where the caller has at least this role (10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner).",
    visibility: "Only projects of this visibility.",
    archived: "Only archived (true) or only unarchived (false) projects.",
    order_by: "Order by this field (default created_at).",
    simple: "Return only the basic fields of each project.",
  },
});

const getProject = apiTool({
  name: "get_project",
  title: "Get a project",
  description: "Get a single project, with the caller's permissions in it.",
  method: "GET",
  route: "/projects/:id",
  endpoint: getProjectEndpoint,
  params: ["id"],
});

/** The scopes `gitlab_search` searches: GitLab's names for the kinds of things this service has. */
const searchScopes = ["projects", "issues"] as const;

/**
 * `gitlab_search`'s parameters, GitLab's, typed by the declarations of the lists it searches. Groups do not exist
 * here, so `group_id` names nothing (GitLab's 404).
 */
const searchParams = {
  scope: z.enum(searchScopes),
  search: searchParam,
  group_id: asToolPathSegment(z.string()).optional(),
  project_id: asToolPathSegment(z.string()).optional(),
  state: issueListParams.state,
  confidential: issueListParams.confidential,
  fields: stringListParam.pipe(z.array(z.enum(["title"]))).optional(),
  order_by: z.enum(["created_at"]).optional(),
  sort: issueListParams.sort,
  ...paginationParams,
};

/**
 * GitLab's aggregated search tool: one tool that runs the list that answers the search, as GitLab's picks its search
 * API's instance, group or project endpoint. Projects are found with `GET /projects?search=` (their basic fields, as
 * GitLab's search answers them), issues with `GET /issues?scope=all&search=` or, in a project,
 * `GET /projects/:id/issues?search=`.
 */
const gitlabSearch: McpTool = {
  name: "gitlab_search",
  title: "Search",
  description: [
    "Search across this service's projects and issues.",
    "",
    "**Capabilities:** basic (keywords in titles, descriptions, names and paths)",
    "",
    "**Syntax Examples:**",
    '- Basic: "bug fix", "login redirect"',
  ].join("\n"),
  annotations: { readOnlyHint: true, openWorldHint: false },
  scopes: readApiScopes,
  inputSchema: () =>
    toolInputSchema(searchParams, {
      scope: "Type of content to search for: projects or issues (in a project: issues).",
      search: "The term to search for.",
      group_id: "Provide to search within a group. The ID or URL-encoded path of the group.",
      project_id: "Provide to search within a project. The ID or URL-encoded path of the project.",
      state: "Filter issues by state: opened, closed or all (default).",
      confidential: "Filter issues by confidentiality.",
      fields: 'Fields to search within: ["title"] searches issue titles only.',
      order_by: "Order results by created_at (the default).",
      sort: commonDescriptions.sort,
      page: commonDescriptions.page,
      per_page: commonDescriptions.per_page,
    }),
  async call(ctx, args) {
    const params = parseParams(searchParams, args);
    if (params.group_id !== undefined) throw new NotFoundError("Group");
    const paging = { page: args.page, per_page: args.per_page, sort: args.sort };
    const issueFilters = { search: args.search, state: args.state, confidential: args.confidential, in: params.fields?.join(","), order_by: args.order_by };
    if (params.project_id !== undefined) {
      if (params.scope !== "issues") throw new ParameterError("scope", "does not have a valid value");
      const target = { method: "GET", route: "/projects/:id/issues", endpoint: listProjectIssuesEndpoint } as const;
      return toolResultOf(await callEndpoint(ctx, target, defined({ id: params.project_id, ...issueFilters, ...paging })));
    }
    if (params.scope === "projects") {
      const target = { method: "GET", route: "/projects", endpoint: listProjectsEndpoint } as const;
      return toolResultOf(await callEndpoint(ctx, target, defined({ search: args.search, order_by: args.order_by, simple: true, ...paging })));
    }
    const target = { method: "GET", route: "/issues", endpoint: listIssuesAcrossProjectsEndpoint } as const;
    return toolResultOf(await callEndpoint(ctx, target, defined({ scope: "all", ...issueFilters, ...paging })));
  },
};

function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** Every tool, in the order `tools/list` gives them: GitLab's first, then this service's own. */
export const mcpTools: readonly McpTool[] = [
  getServerVersion,
  getIssue,
  createIssue,
  gitlabSearch,
  getWorkItemNotes,
  createWorkItemNote,
  listIssueNotes,
  createIssueNote,
  listProjectEvents,
  listAlerts,
  getAlert,
  updateAlertStatus,
  listProjects,
  getProject,
];

/** The tools that are one REST endpoint each, with the route they serve, for the tests that hold them to their routes. */
export const apiTools = [getIssue, createIssue, listIssueNotes, createIssueNote, listProjectEvents, listAlerts, getAlert, updateAlertStatus, listProjects, getProject];

const toolsByName = new Map(mcpTools.map((tool) => [tool.name, tool]));

export function findTool(name: string): McpTool | undefined {
  return toolsByName.get(name);
}

/**
 * Runs a tool. What the tool refuses (a project the caller cannot see, a parameter it does not take, a scope the
 * token lacks) is an error result in the REST API's words, for the model to read; anything else that escapes is a bug,
 * logged with the request id and answered as JSON-RPC's internal error.
 */
export async function runTool(ctx: Ctx, tool: McpTool, args: Record<string, unknown>, requestId: string): Promise<ToolResult> {
  try {
    if (tool.scopes !== null) requireScopes(ctx.actor, tool.scopes);
    return await tool.call(ctx, args);
  } catch (error) {
    const answer = renderError(error, requestId, `/mcp#${tool.name}`);
    if (answer.status >= 500) throw new JsonRpcError(errorCodes.internalError, { request_id: requestId }, 500);
    return toolResultOf(answer);
  }
}
