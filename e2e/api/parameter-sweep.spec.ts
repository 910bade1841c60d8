import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, allowLocalRequestsFromWebHooks, asToken, createProject, createToken, createUser, rootToken, uniqueName, type CreatedUser } from "../support/api";
import { createIntegration } from "../support/alerts";
import { createApplication, freshClientAddress } from "../support/oauth";
import { postMessage } from "../mcp/support";
import { sweptIntegerParameters, sweptRoutes, type IntegerColumn } from "./swept-routes";

/**
 * Clients send parameters a server may not know (python-gitlab's `statistics`, gitbeaker's `showExpanded` leftovers,
 * `with_custom_attributes`…), and booleans the way their language writes them (`True`). GitLab ignores the former and
 * reads the latter; so must every endpoint here. This calls every route with both added and expects its ordinary
 * answer. It calls exactly the routes of `sweptRoutes`, which lib/api/endpoint.test.ts checks against the route files,
 * so a new route cannot be left out.
 */

interface SweptCall {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The route's pattern as its file declares it (`/projects/:id/members/:user_id`). */
  route: string;
  path: string;
  /** Declared parameters of the call (body for writes, query for reads). */
  data?: Record<string, unknown>;
  /** A declared boolean parameter, sent as GitLab clients write booleans. */
  gitlabBoolean?: [name: string, value: string];
  token: string | null;
  status: number;
}

interface Fixture {
  owner: CreatedUser;
  other: CreatedUser;
  projectId: number;
  issueId: number;
  issueIid: number;
  noteId: number;
  milestoneId: number;
  integrationId: number;
  applicationId: number;
}

async function post(request: APIRequestContext, token: string, url: string, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await request.post(url, { headers: asToken(token), data });
  expect(response.status(), `${url}: ${await response.text()}`).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

async function fixture(request: APIRequestContext): Promise<Fixture> {
  const owner = await createUser(request);
  const other = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, other.id, 30);
  const issue = await post(request, owner.token, `/api/v4/projects/${project.id}/issues`, { title: "Swept issue", labels: "swept" });
  const note = await post(request, owner.token, `/api/v4/projects/${project.id}/issues/${issue.iid as number}/notes`, { body: "A note" });
  const milestone = await post(request, owner.token, `/api/v4/projects/${project.id}/milestones`, { title: uniqueName("v") });
  const integration = await createIntegration(request, owner.token, project.id, { name: "Swept", type: "http", active: true });
  const application = await createApplication(request);
  return {
    owner,
    other,
    projectId: project.id,
    issueId: issue.id as number,
    issueIid: issue.iid as number,
    noteId: note.id as number,
    milestoneId: milestone.id as number,
    integrationId: integration.id,
    applicationId: application.id,
  };
}

/** One call of every route, in an order where each call finds what it needs (deletions last). */
async function sweptCalls(request: APIRequestContext, fx: Fixture): Promise<SweptCall[]> {
  const { owner } = fx;
  const project = `/projects/${fx.projectId}`;
  const integration = `${project}/alert_management/integrations/${fx.integrationId}`;
  const revocable = await createToken(request, owner.id, ["api"]);
  const rotatable = await createToken(request, owner.id, ["api"]);
  const selfRotating = await createToken(request, owner.id, ["api"]);
  const selfRevoking = await createToken(request, owner.id, ["api"]);
  const removable = await createProject(request, owner.token);
  const removableIssue = await post(request, owner.token, `/api/v4${project}/issues`, { title: "To delete" });
  const removableNote = await post(request, owner.token, `/api/v4${project}/issues/${fx.issueIid}/notes`, { body: "To delete" });
  const removableMilestone = await post(request, owner.token, `/api/v4${project}/milestones`, { title: uniqueName("gone") });
  const silenceBody = { matchers: ['service="swept"'], ends_at: new Date(Date.now() + 3_600_000).toISOString(), reason: "Swept" };
  const silence = `${project}/alert_management/silences/${(await post(request, owner.token, `/api/v4${project}/alert_management/silences`, silenceBody)).id as number}`;
  const blockable = await createUser(request);
  const deletable = await createUser(request);
  const deletableApplication = await createApplication(request);
  // A hook on an address nobody listens on: its test is refused (422) and logged, which gives a delivery to resend. The
  // address is local, which the instance allows for the suites' receivers.
  await allowLocalRequestsFromWebHooks(request);
  const hook = `${project}/hooks/${(await post(request, owner.token, `/api/v4${project}/hooks`, { url: "http://127.0.0.1:9/swept", milestone_events: true })).id as number}`;
  expect((await request.post(`/api/v4${hook}/test/milestone_events`, { headers: asToken(owner.token) })).status()).toBe(422);
  const hookLogs = (await (await request.get(`/api/v4${hook}/events`, { headers: asToken(owner.token) })).json()) as { id: number }[];
  const removableHook = await post(request, owner.token, `/api/v4${project}/hooks`, { url: "https://example.com/removed" });
  const groupPath = uniqueName("swept");
  const group = `/groups/${(await post(request, owner.token, "/api/v4/groups", { name: "Swept", path: groupPath })).id as number}`;
  const groupId = Number(group.split("/")[2]);
  const removableGroup = await post(request, owner.token, "/api/v4/groups", { name: "Gone", path: uniqueName("gone") });
  return [
    { method: "GET", route: "/version", path: "/version", token: owner.token, status: 200 },
    { method: "GET", route: "/metadata", path: "/metadata", token: owner.token, status: 200 },
    { method: "GET", route: "/openapi.json", path: "/openapi.json", token: owner.token, status: 200 },
    { method: "GET", route: "/user", path: "/user", token: owner.token, status: 200 },
    { method: "PUT", route: "/users/:id", path: `/users/${fx.other.id}`, data: { bio: "Swept" }, gitlabBoolean: ["external", "False"], token: rootToken, status: 200 },
    { method: "GET", route: "/users/:user_id/projects", path: `/users/${owner.id}/projects`, gitlabBoolean: ["simple", "True"], token: owner.token, status: 200 },
    { method: "GET", route: "/personal_access_tokens/self", path: "/personal_access_tokens/self", token: owner.token, status: 200 },
    { method: "POST", route: "/personal_access_tokens/:id/rotate", path: `/personal_access_tokens/${rotatable.id}/rotate`, token: owner.token, status: 200 },
    { method: "POST", route: "/personal_access_tokens/self/rotate", path: "/personal_access_tokens/self/rotate", token: selfRotating.token, status: 200 },
    { method: "DELETE", route: "/personal_access_tokens/self", path: "/personal_access_tokens/self", token: selfRevoking.token, status: 204 },
    { method: "GET", route: "/issues", path: "/issues", gitlabBoolean: ["confidential", "false"], token: owner.token, status: 200 },
    { method: "GET", route: "/issues/:id", path: `/issues/${fx.issueId}`, token: rootToken, status: 200 },
    { method: "PUT", route: "/projects/:id", path: project, data: { description: "Swept" }, gitlabBoolean: ["issues_enabled", "TRUE"], token: owner.token, status: 200 },
    { method: "POST", route: "/projects/:id/archive", path: `/projects/${removable.id}/archive`, token: owner.token, status: 201 },
    { method: "POST", route: "/projects/:id/unarchive", path: `/projects/${removable.id}/unarchive`, token: owner.token, status: 201 },
    { method: "GET", route: "/projects/:id/members/all", path: `${project}/members/all`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/members/all/:user_id", path: `${project}/members/all/${fx.other.id}`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/issues/:issue_iid/notes", path: `${project}/issues/${fx.issueIid}/notes`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/issues/:issue_iid/notes/:note_id", path: `${project}/issues/${fx.issueIid}/notes/${fx.noteId}`, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/issues/:issue_iid/notes/:note_id",
      path: `${project}/issues/${fx.issueIid}/notes/${fx.noteId}`,
      data: { body: "Edited" },
      token: owner.token,
      status: 200,
    },
    { method: "GET", route: "/projects/:id/labels", path: `${project}/labels`, gitlabBoolean: ["with_counts", "True"], token: owner.token, status: 200 },
    { method: "POST", route: "/projects/:id/labels", path: `${project}/labels`, data: { name: "made", color: "#112233" }, token: owner.token, status: 201 },
    { method: "PUT", route: "/projects/:id/labels", path: `${project}/labels`, data: { name: "made", description: "Made here" }, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/labels/:name", path: `${project}/labels/swept`, token: owner.token, status: 200 },
    { method: "PUT", route: "/projects/:id/labels/:name", path: `${project}/labels/swept`, data: { color: "#445566" }, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/milestones", path: `${project}/milestones`, data: { state: "active" }, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/milestones/:milestone_id/issues", path: `${project}/milestones/${fx.milestoneId}/issues`, token: owner.token, status: 200 },
    { method: "GET", route: "/users", path: "/users", data: { username: owner.username }, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/users",
      path: "/users",
      data: { email: `${uniqueName("swept")}@example.com`, username: uniqueName("swept"), name: "Swept", password: "a long password" },
      gitlabBoolean: ["skip_confirmation", "True"],
      token: rootToken,
      status: 201,
    },
    { method: "GET", route: "/users/:id", path: `/users/${owner.id}`, token: owner.token, status: 200 },
    { method: "GET", route: "/users/:id/events", path: `/users/${owner.id}/events`, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/users/:user_id/personal_access_tokens",
      path: `/users/${owner.id}/personal_access_tokens`,
      data: { name: "swept", scopes: ["read_api"] },
      token: rootToken,
      status: 201,
    },
    { method: "POST", route: "/users/:id/block", path: `/users/${blockable.id}/block`, token: rootToken, status: 201 },
    { method: "POST", route: "/users/:id/unblock", path: `/users/${blockable.id}/unblock`, token: rootToken, status: 201 },
    { method: "GET", route: "/personal_access_tokens", path: "/personal_access_tokens", gitlabBoolean: ["revoked", "False"], token: owner.token, status: 200 },
    { method: "GET", route: "/personal_access_tokens/:id", path: `/personal_access_tokens/${revocable.id}`, token: owner.token, status: 200 },
    { method: "GET", route: "/events", path: "/events", token: owner.token, status: 200 },
    { method: "GET", route: "/projects", path: "/projects", gitlabBoolean: ["membership", "True"], token: owner.token, status: 200 },
    { method: "POST", route: "/projects", path: "/projects", data: { name: uniqueName("Swept") }, token: owner.token, status: 201 },
    { method: "GET", route: "/projects/:id", path: project, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/events", path: `${project}/events`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/members", path: `${project}/members`, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/projects/:id/members",
      path: `${project}/members`,
      data: { user_id: (await createUser(request)).id, access_level: 10 },
      token: owner.token,
      status: 201,
    },
    { method: "GET", route: "/projects/:id/members/:user_id", path: `${project}/members/${fx.other.id}`, token: owner.token, status: 200 },
    { method: "PUT", route: "/projects/:id/members/:user_id", path: `${project}/members/${fx.other.id}`, data: { access_level: 20 }, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/issues", path: `${project}/issues`, token: owner.token, status: 200 },
    { method: "POST", route: "/projects/:id/issues", path: `${project}/issues`, data: { title: "Another" }, gitlabBoolean: ["confidential", "F"], token: owner.token, status: 201 },
    { method: "GET", route: "/projects/:id/issues/:issue_iid", path: `${project}/issues/${fx.issueIid}`, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/issues/:issue_iid",
      path: `${project}/issues/${fx.issueIid}`,
      data: { title: "Renamed" },
      gitlabBoolean: ["confidential", "no"],
      token: owner.token,
      status: 200,
    },
    {
      method: "POST",
      route: "/projects/:id/issues/:issue_iid/notes",
      path: `${project}/issues/${fx.issueIid}/notes`,
      data: { body: "Swept comment" },
      gitlabBoolean: ["internal", "FALSE"],
      token: owner.token,
      status: 201,
    },
    { method: "POST", route: "/projects/:id/milestones", path: `${project}/milestones`, data: { title: uniqueName("m") }, token: owner.token, status: 201 },
    { method: "GET", route: "/projects/:id/milestones/:milestone_id", path: `${project}/milestones/${fx.milestoneId}`, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/milestones/:milestone_id",
      path: `${project}/milestones/${fx.milestoneId}`,
      data: { description: "Swept" },
      token: owner.token,
      status: 200,
    },
    { method: "GET", route: "/projects/:id/alert_management/integrations", path: `${project}/alert_management/integrations`, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/projects/:id/alert_management/integrations",
      path: `${project}/alert_management/integrations`,
      data: { name: "Another", type: "http" },
      gitlabBoolean: ["active", "On"],
      token: owner.token,
      status: 201,
    },
    { method: "GET", route: "/projects/:id/alert_management/integrations/:integration_id", path: integration, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/alert_management/integrations/:integration_id",
      path: integration,
      data: { name: "Renamed" },
      gitlabBoolean: ["active", "Yes"],
      token: owner.token,
      status: 200,
    },
    {
      method: "POST",
      route: "/projects/:id/alert_management/integrations/:integration_id/test_alert",
      path: `${integration}/test_alert`,
      data: { payload: { title: "Swept alert" } },
      token: owner.token,
      status: 200,
    },
    { method: "GET", route: "/projects/:id/alert_management/silences", path: `${project}/alert_management/silences`, token: owner.token, status: 200 },
    { method: "POST", route: "/projects/:id/alert_management/silences", path: `${project}/alert_management/silences`, data: silenceBody, token: owner.token, status: 201 },
    { method: "GET", route: "/projects/:id/alert_management/silences/:silence_id", path: silence, token: owner.token, status: 200 },
    { method: "PUT", route: "/projects/:id/alert_management/silences/:silence_id", path: silence, data: { ...silenceBody, reason: "Swept again" }, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/alert_management/alerts", path: `${project}/alert_management/alerts`, gitlabBoolean: ["silenced", "False"], token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/alert_management/alerts/:alert_iid", path: `${project}/alert_management/alerts/1`, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/alert_management/alerts/:alert_iid",
      path: `${project}/alert_management/alerts/1`,
      data: { status: "acknowledged" },
      token: owner.token,
      status: 200,
    },
    {
      method: "POST",
      route: "/projects/:id/alert_management/payload_fields",
      path: `${project}/alert_management/payload_fields`,
      data: { payload_example: '{"title":"x"}' },
      token: owner.token,
      status: 200,
    },
    { method: "GET", route: "/projects/:id/alert_management/settings", path: `${project}/alert_management/settings`, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/alert_management/settings",
      path: `${project}/alert_management/settings`,
      gitlabBoolean: ["create_incident", "t"],
      token: owner.token,
      status: 200,
    },
    { method: "POST", route: "/projects/:id/alert_management/integrations/:integration_id/reset_token", path: `${integration}/reset_token`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/hooks", path: `${project}/hooks`, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/projects/:id/hooks",
      path: `${project}/hooks`,
      data: { url: "https://example.com/swept" },
      gitlabBoolean: ["issues_events", "True"],
      token: owner.token,
      status: 201,
    },
    { method: "GET", route: "/projects/:id/hooks/:hook_id", path: hook, token: owner.token, status: 200 },
    {
      method: "PUT",
      route: "/projects/:id/hooks/:hook_id",
      path: hook,
      data: { url: "http://127.0.0.1:9/swept" },
      gitlabBoolean: ["note_events", "False"],
      token: owner.token,
      status: 200,
    },
    { method: "POST", route: "/projects/:id/hooks/:hook_id/test/:trigger", path: `${hook}/test/merge_requests_events`, token: owner.token, status: 422 },
    { method: "GET", route: "/projects/:id/hooks/:hook_id/events", path: `${hook}/events`, token: owner.token, status: 200 },
    {
      method: "POST",
      route: "/projects/:id/hooks/:hook_id/events/:hook_log_id/resend",
      path: `${hook}/events/${hookLogs[0]!.id}/resend`,
      token: owner.token,
      status: 201,
    },
    {
      method: "PUT",
      route: "/projects/:id/hooks/:hook_id/custom_headers/:key",
      path: `${hook}/custom_headers/X-Swept`,
      data: { value: "swept" },
      token: owner.token,
      status: 204,
    },
    // GitLab's integrations, at their path and at the older one.
    ...[
      { route: "/projects/:id/integrations/:slug", slug: "integrations/slack", gitlabBoolean: ["push_events", "False"] as [string, string] },
      { route: "/projects/:id/services/:slug", slug: "services/mattermost", gitlabBoolean: ["notify_only_broken_pipelines", "True"] as [string, string] },
    ].map(({ route, slug, gitlabBoolean }) => ({ method: "PUT" as const, route, path: `${project}/${slug}`, data: { webhook: "https://chat.example.com/hooks/swept" }, gitlabBoolean, token: owner.token, status: 200 })),
    { method: "GET", route: "/projects/:id/integrations", path: `${project}/integrations`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/services", path: `${project}/services`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/integrations/:slug", path: `${project}/integrations/slack`, token: owner.token, status: 200 },
    { method: "GET", route: "/projects/:id/services/:slug", path: `${project}/services/mattermost`, token: owner.token, status: 200 },
    { method: "GET", route: "/applications", path: "/applications", token: rootToken, status: 200 },
    {
      method: "POST",
      route: "/applications",
      path: "/applications",
      data: { name: "Swept", redirect_uri: "https://client.example/cb", scopes: "api" },
      gitlabBoolean: ["confidential", "Off"],
      token: rootToken,
      status: 201,
    },
    { method: "PUT", route: "/applications/:id", path: `/applications/${fx.applicationId}`, gitlabBoolean: ["trusted", "1"], token: rootToken, status: 200 },
    { method: "POST", route: "/applications/:id/renew-secret", path: `/applications/${fx.applicationId}/renew-secret`, token: rootToken, status: 201 },
    { method: "POST", route: "/admin/events/prune", path: "/admin/events/prune", token: rootToken, status: 200 },
    { method: "GET", route: "/application/settings", path: "/application/settings", token: rootToken, status: 200 },
    // The value every shared server has: the setting's own suite runs on a server of its own.
    {
      method: "PUT",
      route: "/application/settings",
      path: "/application/settings",
      gitlabBoolean: ["oauth_authorization_response_iss", "False"],
      token: rootToken,
      status: 200,
    },
    { method: "GET", route: "/groups", path: "/groups", gitlabBoolean: ["all_available", "true"], token: owner.token, status: 200 },
    { method: "POST", route: "/groups", path: "/groups", data: { name: "Sub", path: "sub", parent_id: groupId }, token: owner.token, status: 201 },
    { method: "GET", route: "/groups/:id", path: group, token: owner.token, status: 200 },
    { method: "PUT", route: "/groups/:id", path: group, data: { description: "Swept" }, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/subgroups", path: `${group}/subgroups`, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/descendant_groups", path: `${group}/descendant_groups`, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/projects", path: `${group}/projects`, gitlabBoolean: ["include_subgroups", "True"], token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/issues", path: `${group}/issues`, token: owner.token, status: 200 },
    { method: "POST", route: "/groups/:id/members", path: `${group}/members`, data: { user_id: fx.other.id, access_level: 30 }, token: owner.token, status: 201 },
    { method: "GET", route: "/groups/:id/members", path: `${group}/members`, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/members/:user_id", path: `${group}/members/${fx.other.id}`, token: owner.token, status: 200 },
    { method: "PUT", route: "/groups/:id/members/:user_id", path: `${group}/members/${fx.other.id}`, data: { access_level: 20 }, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/members/all", path: `${group}/members/all`, token: owner.token, status: 200 },
    { method: "GET", route: "/groups/:id/members/all/:user_id", path: `${group}/members/all/${fx.other.id}`, token: owner.token, status: 200 },
    { method: "GET", route: "/namespaces", path: "/namespaces", gitlabBoolean: ["owned_only", "false"], token: owner.token, status: 200 },
    { method: "GET", route: "/namespaces/:id", path: `/namespaces/${groupId}`, token: owner.token, status: 200 },
    { method: "GET", route: "/namespaces/:namespace/exists", path: `/namespaces/${groupPath}/exists`, token: owner.token, status: 200 },
    { method: "PUT", route: "/projects/:id/transfer", path: `/projects/${removable.id}/transfer`, data: { namespace: groupId }, token: owner.token, status: 200 },
    // Deletions last.
    { method: "DELETE", route: "/projects/:id/labels", path: `${project}/labels`, data: { name: "made" }, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/labels/:name", path: `${project}/labels/swept`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/issues/:issue_iid/notes/:note_id", path: `${project}/issues/${fx.issueIid}/notes/${removableNote.id as number}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/issues/:issue_iid", path: `${project}/issues/${removableIssue.iid as number}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/milestones/:milestone_id", path: `${project}/milestones/${removableMilestone.id as number}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id", path: `/projects/${removable.id}`, token: owner.token, status: 202 },
    { method: "DELETE", route: "/applications/:id", path: `/applications/${deletableApplication.id}`, token: rootToken, status: 204 },
    { method: "DELETE", route: "/personal_access_tokens/:id", path: `/personal_access_tokens/${revocable.id}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/alert_management/integrations/:integration_id", path: integration, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/alert_management/silences/:silence_id", path: silence, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/members/:user_id", path: `${project}/members/${fx.other.id}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/hooks/:hook_id/custom_headers/:key", path: `${hook}/custom_headers/X-Swept`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/hooks/:hook_id", path: `${project}/hooks/${removableHook.id as number}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/integrations/:slug", path: `${project}/integrations/slack`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/projects/:id/services/:slug", path: `${project}/services/mattermost`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/groups/:id/members/:user_id", path: `${group}/members/${fx.other.id}`, token: owner.token, status: 204 },
    { method: "DELETE", route: "/groups/:id", path: `/groups/${removableGroup.id as number}`, token: owner.token, status: 202 },
    { method: "DELETE", route: "/users/:id", path: `/users/${deletable.id}`, gitlabBoolean: ["hard_delete", "False"], token: rootToken, status: 204 },
  ];
}

test("every route ignores parameters it does not declare and reads booleans as GitLab clients write them", async ({ request }) => {
  test.setTimeout(120_000);
  const calls = await sweptCalls(request, await fixture(request));
  expect([...new Set(calls.map((call) => `${call.method} ${call.route}`))].sort()).toEqual([...sweptRoutes].sort());
  const undeclared = { undeclared_parameter: "anything", with_custom_attributes: "True", statistics: "yes" };
  for (const call of calls) {
    const declared = { ...call.data, ...(call.gitlabBoolean ? { [call.gitlabBoolean[0]]: call.gitlabBoolean[1] } : {}) };
    const headers = call.token ? asToken(call.token) : {};
    const url = `/api/v4${call.path}?${new URLSearchParams(undeclared).toString()}`;
    const response =
      call.method === "GET"
        ? await request.get(`${url}&${new URLSearchParams(declared as Record<string, string>).toString()}`, { headers })
        : await request.fetch(url, { method: call.method, headers, data: { ...declared, ...undeclared } });
    expect(response.status(), `${call.method} ${call.route}: ${await response.text()}`).toBe(call.status);
  }
});

/** Values the column an integer parameter is compared with cannot hold. */
const beyondColumn: Record<IntegerColumn, string[]> = {
  integer: ["2147483648", "-2147483649", "99999999999"],
  bigint: ["9223372036854775808", "-9223372036854775809"],
};

/** Path segments that can name nothing: no id is zero or negative, and none is beyond the integer column's range. */
const namingNothing = ["0", "-1", "2147483648", "99999999999", "-99999999999"];

/** What a path segment that names nothing answers: GitLab's 404 for the thing it names. */
const notFoundThings: Record<string, string> = {
  "/applications/:id": "Application",
  "/groups/:id": "Group",
  "/namespaces/:id": "Namespace",
  "/issues/:id": "Issue",
  "/personal_access_tokens/:id": "Personal Access Token",
  "/projects/:id": "Project",
  ":alert_iid": "Alert",
  ":integration_id": "Integration",
  ":silence_id": "Silence",
  ":issue_iid": "Issue",
  ":milestone_id": "Milestone",
  ":name": "Label",
  ":note_id": "Note",
  "/members/:user_id": "Member",
  "/all/:user_id": "Member",
  "/users/:id": "User",
  "/users/:user_id": "User",
};

function expectedForMissing(call: SweptCall, position: number): { status: number; body: unknown } {
  const segments = call.route.split("/");
  // Rotating someone else's token is 401 whether it exists or not; only admins learn that it does not (README).
  if (call.route === "/personal_access_tokens/:id/rotate") return { status: 401, body: { message: "401 Unauthorized" } };
  // A hook or a delivery that is not there is GitLab's bare 404 (`find` of a record).
  if (segments[position] === ":hook_id" || segments[position] === ":hook_log_id") return { status: 404, body: { message: "404 Not Found" } };
  // Not ids: a trigger must be one of GitLab's, and any header name can be set (the sweep's PUT sets those its DELETE removes).
  if (segments[position] === ":trigger") return { status: 400, body: { error: "trigger does not have a valid value" } };
  if (segments[position] === ":key") return { status: 204, body: "" };
  // A path, not an id: one that names nothing is free.
  if (segments[position] === ":namespace") return { status: 200, body: { exists: false, suggests: [] } };
  // An integration's name is one of GitLab's; a `PUT` to another is a path GitLab does not serve.
  if (segments[position] === ":slug") return call.method === "PUT" ? { status: 404, body: { error: "404 Not Found" } } : { status: 400, body: { error: "slug does not have a valid value" } };
  const thing = notFoundThings[`/${segments[position - 1]}/${segments[position]}`] ?? notFoundThings[segments[position]!];
  return { status: 404, body: { message: `404 ${thing} Not Found` } };
}

async function send(request: APIRequestContext, call: SweptCall, path: string, data: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const headers = call.token ? asToken(call.token) : {};
  const response =
    call.method === "GET"
      ? await request.get(`/api/v4${path}?${new URLSearchParams(data as Record<string, string>).toString()}`, { headers })
      : await request.fetch(`/api/v4${path}`, { method: call.method, headers, data });
  const text = await response.text();
  return { status: response.status(), body: response.headers()["content-type"] === "application/json" ? JSON.parse(text) : text };
}

test("every integer path segment and parameter answers GitLab's 404 or 400 for values beyond its column's range, never a 500", async ({ request }) => {
  test.setTimeout(180_000);
  const calls = await sweptCalls(request, await fixture(request));
  const unexpected: string[] = [];
  const check = (what: string, answer: { status: number; body: unknown }, expected: { status: number; body: unknown }) => {
    if (JSON.stringify(answer) !== JSON.stringify(expected)) unexpected.push(`${what}: ${JSON.stringify(answer)}, expected ${JSON.stringify(expected)}`);
  };
  for (const call of calls) {
    const declared = { ...call.data, ...(call.gitlabBoolean ? { [call.gitlabBoolean[0]]: call.gitlabBoolean[1] } : {}) };
    for (const [position, segment] of call.route.split("/").entries()) {
      if (!segment.startsWith(":")) continue;
      for (const value of namingNothing) {
        const path = call.path
          .split("/")
          .map((part, index) => (index === position ? value : part))
          .join("/");
        check(`${call.method} ${call.route} with ${segment} ${value}`, await send(request, call, path, declared), expectedForMissing(call, position));
      }
    }
    for (const [name, column] of Object.entries(sweptIntegerParameters[`${call.method} ${call.route}`] ?? {})) {
      for (const value of beyondColumn[column]) {
        // Query strings carry text; JSON bodies carry numbers as well.
        for (const sent of call.method === "GET" ? [value] : [value, Number(value)]) {
          const answer = await send(request, call, call.path, { ...declared, [name]: sent });
          check(`${call.method} ${call.route} with ${name}=${JSON.stringify(sent)}`, answer, { status: 400, body: { error: `${name} is invalid` } });
        }
      }
      // Events' ids are bigint: a keyset cursor past the integer's range is an ordinary one.
      if (column === "bigint") {
        const answer = await send(request, call, call.path, { ...declared, pagination: "keyset", [name]: "3000000000" });
        check(`${call.method} ${call.route} with ${name}=3000000000`, { status: answer.status, body: null }, { status: call.status, body: null });
      }
    }
  }
  expect(unexpected).toEqual([]);
});

/** A property of a tool's input schema, as `tools/list` gives it. */
interface SchemaProperty {
  type?: string | string[];
  maximum?: number;
  anyOf?: SchemaProperty[];
  items?: SchemaProperty;
}

/** Whether a tool's argument is compared with an integer column: integers up to the column's largest, or lists of them. */
function takesColumnIntegers(property: SchemaProperty): boolean {
  if (property.type === "integer" && property.maximum === 2_147_483_647) return true;
  if (property.type === "array" && property.items) return takesColumnIntegers(property.items);
  return (property.anyOf ?? []).some(takesColumnIntegers);
}

/** What a tool's path argument that names nothing answers: the REST API's 404 for the thing it names. */
const toolPathThings: Record<string, string> = { id: "Project", project_id: "Project", group_id: "Group", issue_iid: "Issue", alert_iid: "Alert" };

test("every MCP tool refuses integer arguments beyond their column's range and ids naming nothing as the REST API does, never a 500", async ({ request }) => {
  test.setTimeout(180_000);
  const fx = await fixture(request);
  const mcpToken = (await createToken(request, fx.owner.id, ["mcp"])).token;
  const integration = await createIntegration(request, fx.owner.token, fx.projectId, { name: "Swept tools", type: "http", active: true });
  const alert = await request.post(new URL(integration.url).pathname, { headers: { Authorization: `Bearer ${integration.token}` }, data: { title: "Swept" } });
  expect(alert.status()).toBe(200);
  const alertIid = ((await alert.json()) as { iid: number }[])[0]!.iid;
  const project = { id: fx.projectId };
  const issue = { ...project, issue_iid: fx.issueIid };
  /** Arguments each tool succeeds with. */
  const baseline: Record<string, Record<string, unknown>> = {
    get_mcp_server_version: {},
    get_issue: issue,
    create_issue: { ...project, title: "Swept through MCP" },
    gitlab_search: { scope: "issues", search: "Swept", project_id: fx.projectId },
    get_workitem_notes: { project_id: fx.projectId, work_item_iid: fx.issueIid },
    create_workitem_note: { project_id: fx.projectId, work_item_iid: fx.issueIid, body: "Swept through MCP" },
    get_issue_notes: issue,
    create_issue_note: { ...issue, body: "Swept through MCP" },
    list_project_events: project,
    list_alerts: project,
    get_alert: { ...project, alert_iid: alertIid },
    update_alert_status: { ...project, alert_iid: alertIid, status: "acknowledged" },
    list_projects: {},
    get_project: project,
  };
  let id = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const response = await postMessage(request, mcpToken, { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } }, { "MCP-Protocol-Version": "2025-06-18" });
    expect(response.status(), `${name} ${JSON.stringify(args)}: ${await response.text()}`).toBe(200);
    return ((await response.json()) as { result: { content: { text: string }[]; isError: boolean } }).result;
  };
  const listed = await postMessage(request, mcpToken, { jsonrpc: "2.0", id: 0, method: "tools/list" }, { "MCP-Protocol-Version": "2025-06-18" });
  const { tools } = ((await listed.json()) as { result: { tools: { name: string; inputSchema: { properties: Record<string, SchemaProperty> } }[] } }).result;
  expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(baseline).sort());
  const unexpected: string[] = [];
  for (const tool of tools) {
    const args = baseline[tool.name]!;
    const ordinary = await call(tool.name, args);
    if (ordinary.isError) unexpected.push(`${tool.name} with ${JSON.stringify(args)}: ${ordinary.content[0]!.text}`);
    for (const [name, property] of Object.entries(tool.inputSchema.properties)) {
      const expected = toolPathThings[name] ? `404 ${toolPathThings[name]} Not Found` : takesColumnIntegers(property) ? `${name} is invalid` : null;
      if (!expected) continue;
      const values = toolPathThings[name] ? [...namingNothing, 0, -1, 2_147_483_648] : [...beyondColumn.integer, 2_147_483_648, -2_147_483_649];
      for (const value of values) {
        const result = await call(tool.name, { ...args, [name]: value });
        if (!result.isError || result.content[0]!.text !== expected) {
          unexpected.push(`${tool.name} with ${name}=${JSON.stringify(value)}: ${JSON.stringify(result)}, expected ${expected}`);
        }
      }
    }
  }
  expect(unexpected).toEqual([]);
});

test("OAuth dynamic client registration reads the metadata GitLab reads and ignores the rest, whatever its form", async ({ request }) => {
  const registration = await request.post("/oauth/register", {
    headers: freshClientAddress(),
    data: {
      client_name: "Swept client",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      // RFC 7591 metadata GitLab does not read, and parameters clients add for servers of their own.
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp api",
      logo_uri: "https://client.example/logo.png",
      software_id: "4NRB1-0XZABZI9E6-5SM3R",
      software_statement: "eyJhbGciOiJub25lIn0.e30.",
      contacts: ["ops@client.example"],
      statistics: "True",
      with_custom_attributes: true,
      nested: { deeply: [1, 2, { three: null }] },
    },
  });
  expect(registration.status(), await registration.text()).toBe(201);
  expect(await registration.json()).toMatchObject({ client_name: "[Unverified Dynamic Application] Swept client", scope: "mcp", grant_types: ["authorization_code"] });
  // Integers, booleans and nulls where the metadata it reads belongs are refused as metadata, never a server error.
  for (const [field, value, description] of [
    ["client_name", 2147483648, "client_name must be a string"],
    ["client_name", true, "client_name must be a string"],
    ["client_name", null, "client_name is missing"],
    ["redirect_uris", 1, "redirect_uris must be a string or a list of strings"],
    ["redirect_uris", [false], "redirect_uris must be a string or a list of strings"],
    ["redirect_uris", { uri: "http://127.0.0.1:9/callback" }, "redirect_uris must be a string or a list of strings"],
  ] as const) {
    const refused = await request.post("/oauth/register", {
      headers: freshClientAddress(),
      data: { client_name: "Swept client", redirect_uris: ["http://127.0.0.1:9/callback"], [field]: value },
    });
    expect(refused.status(), `${field}=${JSON.stringify(value)}`).toBe(400);
    expect(await refused.json()).toEqual({ error: "invalid_client_metadata", error_description: description });
  }
});
