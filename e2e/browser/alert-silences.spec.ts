import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, type CreatedUser } from "../support/api";
import { alertsPath, bearer, createIntegration, listAlerts, postAlert, receiverPath, type Alert, type Integration } from "../support/alerts";
import { signIn } from "../support/browser";

// Silences and snoozes: the API's round trip and refusals, and the silences page with the alert list's badge and filter.

type SilencedAlert = Alert & { silenced_by: number | null; snoozed_until: string | null; snoozed_until_resolved: boolean };

interface Team {
  owner: CreatedUser;
  developer: CreatedUser;
  reporter: CreatedUser;
  projectId: number;
  projectPath: string;
  integration: Integration;
}

async function team(request: APIRequestContext): Promise<Team> {
  const [owner, developer, reporter] = await Promise.all(Array.from({ length: 3 }, () => createUser(request)));
  const project = await createProject(request, owner!.token);
  await addMember(request, owner!.token, project.id, developer!.id, 30);
  await addMember(request, owner!.token, project.id, reporter!.id, 20);
  const integration = await createIntegration(request, owner!.token, project.id, { name: "Monitor" });
  return { owner: owner!, developer: developer!, reporter: reporter!, projectId: project.id, projectPath: project.path_with_namespace, integration };
}

const silencesPath = (projectId: number) => `/api/v4/projects/${projectId}/alert_management/silences`;

async function fire(request: APIRequestContext, integration: Integration, body: Record<string, unknown>) {
  const response = await postAlert(request, receiverPath(integration), body, bearer(integration.token));
  expect(response.status(), await response.text()).toBe(200);
}

test("the API creates, reads, changes and deletes silences, silences matching alerts, and snoozes an alert", async ({ request }) => {
  const { owner, developer, reporter, projectId, integration } = await team(request);
  const asOwner = asToken(owner.token);
  const endsAt = new Date(Date.now() + 3_600_000).toISOString();

  // A matcher that names no field is refused, naming it; a Developer may not write silences.
  await expectJson(await request.post(silencesPath(projectId), { headers: asOwner, data: { matchers: ['service="db"', 'team="x"'], ends_at: endsAt, reason: "x" } }), 400, {
    message: 'matcher "team=\\"x\\"" names no alert field: use integration, service, environment, severity, title, monitoring_tool, host or payload.<path>',
  });
  await expectJson(await request.post(silencesPath(projectId), { headers: asOwner, data: { matchers: 'title=~"(a)\\\\1"', ends_at: endsAt, reason: "x" } }), 400, {
    message: 'matcher "title=~\\"(a)\\\\\\\\1\\"" has a pattern that cannot be used: back-references are not supported',
  });
  await expectJson(await request.post(silencesPath(projectId), { headers: asToken(developer.token), data: { matchers: 'service="db"', ends_at: endsAt, reason: "x" } }), 403, {
    message: "403 Forbidden",
  });

  const created = await request.post(silencesPath(projectId), {
    headers: asOwner,
    data: { matchers: '{service="db", payload.labels.team=~"stor.*"}', ends_at: endsAt, reason: "Storage upgrade" },
  });
  expect(created.status(), await created.text()).toBe(201);
  const silence = (await created.json()) as { id: number; matchers: string[]; state: string; ends_at: string; author: { username: string } };
  expect(silence).toMatchObject({ matchers: ['service="db"', 'payload.labels.team=~"stor.*"'], state: "active", ends_at: endsAt, author: { username: owner.username } });
  await expectJson(await request.get(`${silencesPath(projectId)}/${silence.id}`, { headers: asToken(reporter.token) }), 200, silence);
  const listed = await request.get(silencesPath(projectId), { headers: asToken(reporter.token) });
  expect(listed.headers()["x-total"]).toBe("1");
  expect(((await listed.json()) as { id: number }[]).map((item) => item.id)).toEqual([silence.id]);

  // A matching alert is recorded silenced; another is not. The list filters on it.
  await fire(request, integration, { title: "Replication lag", service: "db", labels: { team: "storage" } });
  await fire(request, integration, { title: "CPU hot", service: "web" });
  const silenced = (await listAlerts(request, reporter.token, projectId, "?silenced=true")) as SilencedAlert[];
  expect(silenced.map((alert) => [alert.title, alert.silenced_by])).toEqual([["Replication lag", silence.id]]);
  expect((await listAlerts(request, reporter.token, projectId, "?silenced=false")).map((alert) => alert.title)).toEqual(["CPU hot"]);

  // A weekly window replaces the one-off one; a time zone nobody knows is refused.
  const weekly = { days: ["mon", "sat"], start_time: "22:00", end_time: "06:00", time_zone: "Europe/Berlin" };
  await expectJson(
    await request.put(`${silencesPath(projectId)}/${silence.id}`, { headers: asOwner, data: { matchers: 'service="db"', recurrence: { ...weekly, time_zone: "Nowhere/Else" }, reason: "Nightly" } }),
    400,
    { message: 'recurrence: "Nowhere/Else" is not a known time zone' },
  );
  const changed = await request.put(`${silencesPath(projectId)}/${silence.id}`, { headers: asOwner, data: { matchers: 'service="db"', recurrence: weekly, reason: "Nightly" } });
  expect(changed.status(), await changed.text()).toBe(200);
  expect(await changed.json()).toMatchObject({ recurrence: weekly, starts_at: null, ends_at: null, reason: "Nightly" });

  // Snoozing: a Developer may, within the bounds; 0 ends it.
  const alertPath = `${alertsPath(projectId)}/2`;
  await expectJson(await request.put(alertPath, { headers: asToken(developer.token), data: { snooze_minutes: 5 } }), 400, {
    error: "snooze_minutes is invalid",
  });
  await expectJson(await request.put(alertPath, { headers: asToken(reporter.token), data: { snooze_minutes: 30 } }), 403, { message: "403 Forbidden" });
  const snoozed = await request.put(alertPath, { headers: asToken(developer.token), data: { snooze_minutes: 30 } });
  expect(snoozed.status(), await snoozed.text()).toBe(200);
  const snoozedUntil = Date.parse(((await snoozed.json()) as SilencedAlert).snoozed_until!);
  expect(Math.abs(snoozedUntil - (Date.now() + 30 * 60_000))).toBeLessThan(60_000);
  const untilResolved = await request.put(alertPath, { headers: asToken(developer.token), data: { snooze_until_resolved: true } });
  expect(await untilResolved.json()).toMatchObject({ snoozed_until: null, snoozed_until_resolved: true });
  const ended = await request.put(alertPath, { headers: asToken(developer.token), data: { snooze_minutes: 0 } });
  expect(await ended.json()).toMatchObject({ snoozed_until: null, snoozed_until_resolved: false });

  const deleted = await request.delete(`${silencesPath(projectId)}/${silence.id}`, { headers: asOwner });
  expect(deleted.status()).toBe(204);
  await expectJson(await request.get(`${silencesPath(projectId)}/${silence.id}`, { headers: asOwner }), 404, { message: "404 Silence Not Found" });
});

test("a Maintainer creates a silence on its page; an alert it matches shows as silenced in the list and on its page", async ({ page, request }) => {
  const { owner, projectPath, integration } = await team(request);
  const listPath = `/${projectPath}/-/alert_management`;
  await signIn(page, owner.username, owner.password);
  await page.goto(listPath);
  await page.getByRole("link", { name: "Silences", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${listPath}/silences$`));
  await expect(page.getByText("No silences.")).toBeVisible();

  // A bad matcher is refused with its name; then a good silence is created.
  await page.getByRole("textbox", { name: "Matchers" }).fill('service="db"\nteam="x"');
  await page.getByRole("textbox", { name: "Reason" }).fill("Database maintenance");
  await page.getByLabel("Ends").fill("2099-12-31T23:59");
  await page.getByRole("button", { name: "Create silence" }).click();
  await expect(page.getByRole("alert").filter({ hasText: 'matcher "team=\\"x\\"" names no alert field' })).toBeVisible();
  await page.getByRole("textbox", { name: "Matchers" }).fill('service="db"\nseverity=~"high|critical"');
  await page.getByRole("button", { name: "Create silence" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Silence created." })).toBeVisible();
  const row = page.getByRole("table").getByRole("row").filter({ hasText: "Database maintenance" });
  await expect(row).toContainText('service="db"');
  await expect(row).toContainText('severity=~"high|critical"');
  await expect(row).toContainText("Active");

  await fire(request, integration, { title: "Replication lag", service: "db", severity: "critical" });
  await fire(request, integration, { title: "CPU hot", service: "web", severity: "critical" });
  await page.goto(listPath);
  await expect(page.getByRole("row").filter({ hasText: "Replication lag" })).toContainText("Silenced");
  await expect(page.getByRole("row").filter({ hasText: "CPU hot" })).not.toContainText("Silenced");
  await page.getByRole("combobox", { name: "Silenced" }).selectOption("true");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/silenced=true/);
  await expect(page.getByRole("link", { name: /Replication lag/ })).toBeVisible();
  await expect(page.getByRole("link", { name: /CPU hot/ })).toHaveCount(0);

  await page.getByRole("link", { name: /Replication lag/ }).click();
  const overview = page.getByRole("region", { name: "Alert details" });
  await expect(overview).toContainText("Silenced by silence");
  await expect(overview).toContainText("Database maintenance");
  // Snoozing from the page.
  await expect(overview).toContainText("Not snoozed");
  await page.getByRole("combobox", { name: "Snooze for" }).selectOption("until_resolved");
  await page.getByRole("button", { name: "Snooze", exact: true }).click();
  await expect(overview).toContainText("Snoozed until resolved");
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText("snoozed notifications until the alert resolves");

  // Deleting the silence from its page.
  await page.goto(`${listPath}/silences`);
  await page.getByRole("button", { name: /Delete silence/ }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete silence" }).click();
  await expect(page.getByText("No silences.")).toBeVisible();
});
