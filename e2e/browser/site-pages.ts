import type { APIRequestContext } from "@playwright/test";
import { createIntegration, postAlert, receiverPath, bearer } from "../support/alerts";
import { allowLocalRequestsFromWebHooks, asToken, createProject, createUser, type CreatedUser } from "../support/api";
import { callbackUrl, createApplication } from "../support/oauth";

/**
 * Every page of the site, as its file under `app/` declares it, with a URL that shows it with content. The
 * accessibility spec visits each; lib/testing/site-pages.test.ts checks this list against the page files, so a new
 * page cannot be left out.
 */
export interface SitePage {
  /** The page's route as its folder names it (`/[namespace]/[project]/-/issues/[iid]`). */
  route: string;
  /** Who looks at it: nobody signed in, or the fixture's owner (an administrator who owns the project). */
  visitor: "anonymous" | "owner";
  url: (site: SiteFixture) => string;
}

export interface SiteFixture {
  owner: CreatedUser;
  /** `namespace/project`. */
  projectPath: string;
  issueIid: number;
  /** A milestone the issue is filed under. */
  milestoneIid: number;
  alertIid: number;
  /** `/oauth/authorize?…` of an application that asks for consent. */
  authorizeUrl: string;
  /** A webhook of the project, and one logged request of it. */
  hookId: number;
  hookLogId: number;
  /** The full path of a subgroup the owner owns, with a project in it. */
  groupPath: string;
}

export const sitePages: SitePage[] = [
  { route: "/", visitor: "anonymous", url: () => "/" },
  { route: "/users/sign_in", visitor: "anonymous", url: () => "/users/sign_in" },
  { route: "/users/sign_up", visitor: "anonymous", url: () => "/users/sign_up" },
  { route: "/users/almost_there", visitor: "anonymous", url: () => "/users/almost_there" },
  { route: "/users/confirmation/new", visitor: "anonymous", url: () => "/users/confirmation/new" },
  { route: "/users/confirmation/result", visitor: "anonymous", url: () => "/users/confirmation/result?outcome=expired" },
  { route: "/users/password/new", visitor: "anonymous", url: () => "/users/password/new" },
  { route: "/users/password/edit", visitor: "anonymous", url: () => "/users/password/edit?reset_password_token=unknown" },
  { route: "/oauth/device", visitor: "owner", url: () => "/oauth/device" },
  { route: "/oauth/authorize/consent", visitor: "owner", url: (site) => site.authorizeUrl },
  { route: "/projects", visitor: "owner", url: () => "/projects" },
  { route: "/projects/new", visitor: "owner", url: () => "/projects/new" },
  { route: "/dashboard/activity", visitor: "owner", url: () => "/dashboard/activity" },
  { route: "/dashboard/groups", visitor: "owner", url: () => "/dashboard/groups" },
  { route: "/groups", visitor: "owner", url: () => "/groups" },
  { route: "/groups/new", visitor: "owner", url: () => "/groups/new" },
  { route: "/groups/[group]", visitor: "owner", url: (site) => `/groups/${site.groupPath}` },
  { route: "/groups/[group]/-/group_members", visitor: "owner", url: (site) => `/groups/${site.groupPath}/-/group_members` },
  { route: "/groups/[group]/-/edit", visitor: "owner", url: (site) => `/groups/${site.groupPath}/-/edit` },
  { route: "/groups/[group]/-/activity", visitor: "owner", url: (site) => `/groups/${site.groupPath}/-/activity` },
  { route: "/[namespace]", visitor: "owner", url: (site) => `/${site.owner.username}` },
  { route: "/[namespace]/[project]", visitor: "owner", url: (site) => `/${site.projectPath}` },
  { route: "/[namespace]/[project]/activity", visitor: "owner", url: (site) => `/${site.projectPath}/activity` },
  { route: "/[namespace]/[project]/-/issues", visitor: "owner", url: (site) => `/${site.projectPath}/-/issues` },
  { route: "/[namespace]/[project]/-/issues/[iid]", visitor: "owner", url: (site) => `/${site.projectPath}/-/issues/${site.issueIid}` },
  { route: "/[namespace]/[project]/-/milestones", visitor: "owner", url: (site) => `/${site.projectPath}/-/milestones` },
  { route: "/[namespace]/[project]/-/milestones/[iid]", visitor: "owner", url: (site) => `/${site.projectPath}/-/milestones/${site.milestoneIid}` },
  { route: "/[namespace]/[project]/-/project_members", visitor: "owner", url: (site) => `/${site.projectPath}/-/project_members` },
  { route: "/[namespace]/[project]/-/settings/operations", visitor: "owner", url: (site) => `/${site.projectPath}/-/settings/operations` },
  { route: "/[namespace]/[project]/-/hooks", visitor: "owner", url: (site) => `/${site.projectPath}/-/hooks` },
  { route: "/[namespace]/[project]/-/hooks/[hook_id]/edit", visitor: "owner", url: (site) => `/${site.projectPath}/-/hooks/${site.hookId}/edit` },
  {
    route: "/[namespace]/[project]/-/hooks/[hook_id]/hook_logs/[log_id]",
    visitor: "owner",
    url: (site) => `/${site.projectPath}/-/hooks/${site.hookId}/hook_logs/${site.hookLogId}`,
  },
  { route: "/[namespace]/[project]/-/settings/integrations", visitor: "owner", url: (site) => `/${site.projectPath}/-/settings/integrations` },
  {
    route: "/[namespace]/[project]/-/settings/integrations/[slug]/edit",
    visitor: "owner",
    url: (site) => `/${site.projectPath}/-/settings/integrations/slack/edit`,
  },
  { route: "/[namespace]/[project]/-/alert_management", visitor: "owner", url: (site) => `/${site.projectPath}/-/alert_management` },
  { route: "/[namespace]/[project]/-/alert_management/silences", visitor: "owner", url: (site) => `/${site.projectPath}/-/alert_management/silences` },
  {
    route: "/[namespace]/[project]/-/alert_management/[iid]/details",
    visitor: "owner",
    url: (site) => `/${site.projectPath}/-/alert_management/${site.alertIid}/details`,
  },
  { route: "/admin/application_settings/general", visitor: "owner", url: () => "/admin/application_settings/general" },
  { route: "/admin/users", visitor: "owner", url: () => "/admin/users" },
  { route: "/admin/users/[username]", visitor: "owner", url: (site) => `/admin/users/${site.owner.username}` },
  { route: "/admin/applications", visitor: "owner", url: () => "/admin/applications" },
  { route: "/profile", visitor: "owner", url: () => "/profile" },
  { route: "/profile/applications", visitor: "owner", url: () => "/profile/applications" },
  { route: "/profile/notifications", visitor: "owner", url: () => "/profile/notifications" },
  { route: "/profile/password/edit", visitor: "owner", url: () => "/profile/password/edit" },
  { route: "/profile/personal_access_tokens", visitor: "owner", url: () => "/profile/personal_access_tokens" },
  { route: "/profile/two_factor_auth", visitor: "owner", url: () => "/profile/two_factor_auth" },
];

async function created<T>(request: APIRequestContext, url: string, token: string, data: Record<string, unknown>): Promise<T> {
  const response = await request.post(url, { headers: asToken(token), data });
  if (response.status() !== 201) throw new Error(`${url} answered ${response.status()}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** An administrator owning a project with an issue, a comment, an alert, its integrations and a webhook: every page has content. */
export async function siteFixture(request: APIRequestContext): Promise<SiteFixture> {
  const owner = await createUser(request, { admin: true });
  const project = await createProject(request, owner.token, { description: "Where the checkout service lives." });
  const milestone = await created<{ id: number; iid: number }>(request, `/api/v4/projects/${project.id}/milestones`, owner.token, {
    title: "Spring release",
    start_date: "2030-03-01",
    due_date: "2030-03-31",
    description: "Everything the spring campaign needs.",
  });
  const issue = await created<{ iid: number }>(request, `/api/v4/projects/${project.id}/issues`, owner.token, {
    title: "Checkout fails on empty carts",
    milestone_id: milestone.id,
    description: "Steps:\n1. Empty the cart\n2. Press *Checkout*",
  });
  await created(request, `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, owner.token, { body: "Seen on production too." });
  const integration = await createIntegration(request, owner.token, project.id, { name: "Production monitoring" });
  const alert = await postAlert(request, receiverPath(integration), { title: "High error rate", severity: "high", hosts: ["web-1"] }, bearer(integration.token));
  if (alert.status() !== 200) throw new Error(`the receiver answered ${alert.status()}: ${await alert.text()}`);
  // A hook on an address nobody listens on: its test fails, and is logged. The address is local, which the instance
  // allows for the suites' receivers.
  await allowLocalRequestsFromWebHooks(request);
  const hook = await created<{ id: number }>(request, `/api/v4/projects/${project.id}/hooks`, owner.token, { url: "http://127.0.0.1:9/hook", name: "Deploy notifier" });
  await request.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/push_events`, { headers: asToken(owner.token) });
  await request.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/issues_events`, { headers: asToken(owner.token) });
  const hookLogs = (await (await request.get(`/api/v4/projects/${project.id}/hooks/${hook.id}/events`, { headers: asToken(owner.token) })).json()) as { id: number }[];
  if (!hookLogs[0]) throw new Error("the hook's test was not logged");
  const slack = await request.put(`/api/v4/projects/${project.id}/integrations/slack`, {
    headers: asToken(owner.token),
    data: { webhook: "http://127.0.0.1:9/slack", channel: "#checkout", labels_to_be_notified: "~bug" },
  });
  if (slack.status() !== 200) throw new Error(`setting Slack up answered ${slack.status()}: ${await slack.text()}`);
  const group = await created<{ id: number }>(request, "/api/v4/groups", owner.token, { name: "Payments", path: `payments-${owner.id}`, visibility: "internal" });
  const subgroup = await created<{ id: number; full_path: string }>(request, "/api/v4/groups", owner.token, {
    name: "Checkout team",
    path: "checkout-team",
    parent_id: group.id,
    description: "Everything between the cart and the receipt.",
  });
  await created(request, "/api/v4/projects", owner.token, { name: "Receipts", namespace_id: subgroup.id });
  const application = await createApplication(request, { scopes: "read_user openid" });
  const authorize = new URLSearchParams({ client_id: application.application_id, redirect_uri: callbackUrl, response_type: "code", scope: "read_user openid", state: "page-check" });
  return { owner, projectPath: project.path_with_namespace, issueIid: issue.iid, milestoneIid: milestone.iid, alertIid: 1, authorizeUrl: `/oauth/authorize?${authorize.toString()}`, hookId: hook.id, hookLogId: hookLogs[0].id, groupPath: subgroup.full_path };
}
