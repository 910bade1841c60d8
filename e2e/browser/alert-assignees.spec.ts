import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, type CreatedUser } from "../support/api";
import { alertsPath, bearer, createIntegration, listAlerts, postAlert, receiverPath, type Alert } from "../support/alerts";
import { signIn } from "../support/browser";

// Alert assignees: the API's PUT and filter, and the alert pages' assignee field and list filter.

interface Team {
  owner: CreatedUser;
  developer: CreatedUser;
  reporter: CreatedUser;
  guest: CreatedUser;
  outsider: CreatedUser;
  projectId: number;
  projectPath: string;
}

/** A project with a member of each role below Owner that matters here, someone outside it, and two alerts. */
async function teamWithAlerts(request: APIRequestContext): Promise<Team> {
  const [owner, developer, reporter, guest, outsider] = await Promise.all(Array.from({ length: 5 }, () => createUser(request)));
  const project = await createProject(request, owner!.token);
  await addMember(request, owner!.token, project.id, developer!.id, 30);
  await addMember(request, owner!.token, project.id, reporter!.id, 20);
  await addMember(request, owner!.token, project.id, guest!.id, 10);
  const integration = await createIntegration(request, owner!.token, project.id);
  for (const title of ["CPU hot", "Disk full"]) {
    const response = await postAlert(request, receiverPath(integration), { title }, bearer(integration.token));
    expect(response.status(), await response.text()).toBe(200);
  }
  return {
    owner: owner!,
    developer: developer!,
    reporter: reporter!,
    guest: guest!,
    outsider: outsider!,
    projectId: project.id,
    projectPath: project.path_with_namespace,
  };
}

/** GitLab's UserBasic, as issues render their assignees. */
function userBasic(baseURL: string | undefined, user: CreatedUser) {
  return {
    id: user.id,
    username: user.username,
    name: `User ${user.username}`,
    state: "active",
    avatar_url: `${baseURL}/-/avatars/${user.id}`,
    web_url: `${baseURL}/${user.username}`,
  };
}

test("the API assigns, replaces and unassigns alert assignees, refuses who may not, and filters by assignee", async ({ request, baseURL }) => {
  const team = await teamWithAlerts(request);
  const alertPath = `${alertsPath(team.projectId)}/1`;
  const asDeveloper = asToken(team.developer.token);

  const before = (await (await request.get(alertPath, { headers: asDeveloper })).json()) as Alert & { updated_at: string };
  expect(before.assignees).toEqual([]);

  // Assign by id: the alert as GET renders it, with its assignee and a new updated_at; nothing else changes.
  const assigned = await request.put(alertPath, { headers: asDeveloper, data: { assignee_ids: [team.reporter.id] } });
  expect(assigned.status(), await assigned.text()).toBe(200);
  const assignedBody = (await assigned.json()) as Alert & { updated_at: string };
  expect(assignedBody).toEqual({ ...before, assignees: [userBasic(baseURL, team.reporter)], updated_at: expect.any(String) });
  expect(assignedBody.updated_at > before.updated_at).toBe(true);
  await expectJson(await request.get(alertPath, { headers: asToken(team.reporter.token) }), 200, assignedBody);

  // Replace by username, with the status in the same request.
  const replaced = await request.put(alertPath, { headers: asDeveloper, data: { assignee_usernames: [team.developer.username], status: "acknowledged" } });
  expect(replaced.status(), await replaced.text()).toBe(200);
  expect(await replaced.json()).toMatchObject({ status: "acknowledged", assignees: [userBasic(baseURL, team.developer)] });

  // The list's filter, alone and with the status filter; the other alert has nobody.
  const iids = async (query: string) => (await listAlerts(request, team.reporter.token, team.projectId, query)).map((alert) => alert.iid);
  expect(await iids(`?assignee_username=${team.developer.username}`)).toEqual([1]);
  expect(await iids(`?assignee_username=${team.developer.username}&status=triggered`)).toEqual([]);
  expect(await iids(`?assignee_username=${team.reporter.username}`)).toEqual([]);
  expect(await iids("?assignee_username=nobody_at_all")).toEqual([]);
  const all = await listAlerts(request, team.reporter.token, team.projectId);
  expect(all.map((alert) => [alert.iid, alert.assignees.map((user) => user.username)])).toEqual([
    [2, []],
    [1, [team.developer.username]],
  ]);

  // Refusals: someone who may not read the alerts, a Reporter or a Guest changing them, nothing to change.
  for (const assignee of [team.outsider, team.guest]) {
    await expectJson(await request.put(alertPath, { headers: asDeveloper, data: { assignee_ids: [assignee.id] } }), 400, { message: "Assignee has no permissions" });
  }
  for (const member of [team.reporter, team.guest]) {
    await expectJson(await request.put(alertPath, { headers: asToken(member.token), data: { assignee_ids: [member.id] } }), 403, { message: "403 Forbidden" });
  }
  await expectJson(await request.put(alertPath, { headers: asDeveloper, data: {} }), 400, {
    error: "status, assignee_ids, assignee_usernames, snooze_minutes, snooze_until_resolved are missing, at least one parameter must be provided",
  });
  expect(((await (await request.get(alertPath, { headers: asDeveloper })).json()) as Alert).assignees).toEqual([userBasic(baseURL, team.developer)]);

  // An empty list unassigns.
  const unassigned = await request.put(alertPath, { headers: asDeveloper, data: { assignee_ids: [] } });
  expect(unassigned.status(), await unassigned.text()).toBe(200);
  expect(await unassigned.json()).toMatchObject({ iid: 1, assignees: [] });
  expect(await iids(`?assignee_username=${team.developer.username}`)).toEqual([]);
});

test("a Developer assigns from the alert's page, finds the alert by its assignee in the list, and unassigns it", async ({ page, request }) => {
  const team = await teamWithAlerts(request);
  const listPath = `/${team.projectPath}/-/alert_management`;

  await signIn(page, team.developer.username, team.developer.password);
  await page.goto(`${listPath}/1/details`);
  const overview = page.getByRole("region", { name: "Alert details" });
  await expect(overview).toContainText("Unassigned");
  const assignee = page.getByRole("textbox", { name: "Assignee username" });

  // Someone outside the project is refused, on the field.
  await assignee.fill(team.outsider.username);
  await page.getByRole("button", { name: "Assign", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Assignee has no permissions" })).toBeVisible();
  await expect(assignee).toHaveAttribute("aria-invalid", "true");

  await assignee.fill(`@${team.reporter.username}`);
  await page.getByRole("button", { name: "Assign", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: `Alert #1 assigned to @${team.reporter.username}.` })).toBeVisible();
  await expect(overview.getByRole("link", { name: `User ${team.reporter.username}` })).toBeVisible();
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText(`assigned to @${team.reporter.username}`);
  const stored = await request.get(`${alertsPath(team.projectId)}/1`, { headers: asToken(team.owner.token) });
  expect(((await stored.json()) as Alert).assignees.map((user) => user.id)).toEqual([team.reporter.id]);

  // The list filter finds it, and only it; the filter stays in the form.
  await page.goto(listPath);
  await page.getByRole("searchbox", { name: "Assignee" }).fill(team.reporter.username);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`assignee_username=${team.reporter.username}`));
  await expect(page.getByRole("searchbox", { name: "Assignee" })).toHaveValue(team.reporter.username);
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: "#1 CPU hot" })).toContainText(`User ${team.reporter.username}`);
  await expect(page.getByRole("link", { name: "#2 Disk full" })).toHaveCount(0);

  // Unassigning from the page takes it out of the filtered list.
  await page.getByRole("link", { name: "#1 CPU hot" }).click();
  await page.getByRole("button", { name: "Unassign" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Alert #1 unassigned." })).toBeVisible();
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText(`unassigned @${team.reporter.username}`);
  await page.goto(`${listPath}?assignee_username=${team.reporter.username}`);
  await expect(page.getByText("No alerts match your search.")).toBeVisible();
});

test("Reporters see the assignee without a way to change it", async ({ page, request }) => {
  const team = await teamWithAlerts(request);
  await expectJson(
    await request.put(`${alertsPath(team.projectId)}/2`, { headers: asToken(team.developer.token), data: { assignee_usernames: [team.developer.username] } }),
    200,
    expect.objectContaining({ iid: 2 }),
  );
  await signIn(page, team.reporter.username, team.reporter.password);
  await page.goto(`/${team.projectPath}/-/alert_management/2/details`);
  await expect(page.getByRole("region", { name: "Alert details" }).getByRole("link", { name: `User ${team.developer.username}` })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Assignee username" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Assign", exact: true })).toHaveCount(0);
});
