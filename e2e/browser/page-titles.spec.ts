import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { signIn } from "../support/browser";

test("every page of a project names the project in its title", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "private" });
  const { name } = (await (await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(owner.token) })).json()) as { name: string };
  expect((await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Slow start" } })).status()).toBe(201);
  expect((await request.post(`/api/v4/projects/${project.id}/milestones`, { headers: asToken(owner.token), data: { title: "Launch" } })).status()).toBe(201);
  const integration = await createIntegration(request, owner.token, project.id);
  expect((await postAlert(request, receiverPath(integration), { title: "Disk full" }, bearer(integration.token))).status()).toBe(200);

  await signIn(page, owner.username, owner.password);
  const base = `/${project.path_with_namespace}`;
  const expected: [string, string][] = [
    [base, `${name} · GitLab-compatible service`],
    [`${base}/activity`, `Activity · ${name} · GitLab-compatible service`],
    [`${base}/-/issues`, `Issues · ${name} · GitLab-compatible service`],
    [`${base}/-/issues/1`, `Slow start (#1) · Issues · ${name} · GitLab-compatible service`],
    [`${base}/-/milestones`, `Milestones · ${name} · GitLab-compatible service`],
    [`${base}/-/milestones/1`, `Launch · Milestones · ${name} · GitLab-compatible service`],
    [`${base}/-/project_members`, `Members · ${name} · GitLab-compatible service`],
    [`${base}/-/alert_management`, `Alerts · ${name} · GitLab-compatible service`],
    [`${base}/-/alert_management/1/details`, `Alert details · ${name} · GitLab-compatible service`],
    [`${base}/-/settings/operations`, `Alerts · Monitor settings · ${name} · GitLab-compatible service`],
    [`${base}/-/settings/integrations`, `Integrations · ${name} · GitLab-compatible service`],
    [`${base}/-/settings/integrations/microsoft-teams/edit`, `Microsoft Teams notifications · Integrations · ${name} · GitLab-compatible service`],
  ];
  for (const [path, title] of expected) {
    await page.goto(path);
    await expect(page, path).toHaveTitle(title);
  }

  // Someone who may not see the project does not learn its name from the title either.
  const stranger = await createUser(request);
  await page.context().clearCookies();
  await signIn(page, stranger.username, stranger.password);
  const response = await page.goto(`${base}/-/issues`);
  expect(response?.status()).toBe(404);
  expect(await page.title()).not.toContain(name);
  const milestone = await page.goto(`${base}/-/milestones/1`);
  expect(milestone?.status()).toBe(404);
  expect(await page.title()).toBe("GitLab-compatible service");
});

test("pages outside projects have titles of their own, and the site has an icon", async ({ page, request }) => {
  const expected: [string, string][] = [
    ["/users/sign_in", "Sign in · GitLab-compatible service"],
    ["/users/password/new", "Forgot your password? · GitLab-compatible service"],
  ];
  for (const [path, title] of expected) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
  }
  const icon = page.locator('link[rel="icon"]');
  await expect(icon).toHaveAttribute("type", "image/svg+xml");
  const answer = await request.get((await icon.getAttribute("href"))!);
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-type"]).toContain("image/svg+xml");
  expect(await answer.text()).toContain("<svg");
});
