import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { addMember, asToken, createProject, createUser, uniqueName } from "../support/api";
import { bearer, createIntegration, integrationsPath, postAlert, receiverPath, type Integration } from "../support/alerts";
import { signIn, withFreshApi } from "../support/browser";
import { mailedSubjects } from "../support/mail";

const sample = { alert: { name: "Disk full", level: "high" }, targets: [{ host: "db-1" }], when: "2026-01-01T10:00:00Z" };

/** Chooses a status for an alert, saves it with "Update status" and waits for the notice that says so. */
async function changeStatus(page: Page, iid: number, status: string, notice: string) {
  const update = page.getByRole("button", { name: `Update status of alert #${iid}` });
  // Right after a client-side navigation the list may render once more, which resets an unsaved choice: choose again.
  await expect(async () => {
    await page.getByRole("combobox", { name: `Status of alert #${iid}` }).selectOption(status);
    await expect(update).toBeEnabled({ timeout: 1_000 });
  }).toPass();
  await update.click();
  await expect(page.getByRole("status").filter({ hasText: notice })).toBeVisible();
}

/** Picks a parsed payload field for an alert field in the mapping table (a searchable dropdown). */
async function mapField(page: Page, alertField: string, search: string, option: string) {
  const combobox = page.getByRole("combobox", { name: `Payload alert key for ${alertField}` });
  await combobox.click();
  await combobox.fill(search);
  await page.getByRole("listbox", { name: `Payload alert key for ${alertField}` }).getByRole("option", { name: option }).click();
  await expect(combobox).toHaveValue(option);
}

/** Saves the "Alert settings" tab, checks what the API then answers, and opens the tab again on a reloaded page. */
async function saveAlertSettings(
  page: Page,
  { playwright, baseURL }: { playwright: Parameters<typeof withFreshApi>[0]; baseURL: string | undefined },
  projectId: number,
  token: string,
  stored: Record<string, boolean>,
) {
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Your changes have been saved.")).toBeVisible();
  await withFreshApi(playwright, baseURL, async (api) => {
    const settings = await api.get(`/api/v4/projects/${projectId}/alert_management/settings`, { headers: asToken(token) });
    expect(await settings.json()).toEqual(stored);
  });
  await page.reload();
  await page.getByRole("tab", { name: "Alert settings" }).click();
}

/** A project of a new Owner, with a new Maintainer who signs in in `page`. */
async function signInAsMaintainer(page: Page, request: APIRequestContext) {
  const owner = await createUser(request);
  const maintainer = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, maintainer.id, 40);
  await signIn(page, maintainer.username, maintainer.password);
  return { owner, maintainer, project };
}

test("a Maintainer maps a nested payload, sends a test alert, finds the mapped alert and acknowledges it", async ({ page, request, baseURL, playwright }) => {
  const { maintainer, project } = await signInAsMaintainer(page, request);
  await page.goto(`/${project.path_with_namespace}`);
  await page.getByRole("link", { name: "Alert integrations and settings" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/settings/operations$`));
  await expect(page.getByRole("tab", { name: "Current integrations" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByText("No integrations have been added yet.")).toBeVisible();

  await page.getByRole("button", { name: "Add new integration" }).click();
  await expect(page.getByRole("tab", { name: "View credentials" })).toBeDisabled();
  await expect(page.getByRole("tab", { name: "Send test alert" })).toBeDisabled();
  await expect(page.getByLabel("1. Select integration type")).toHaveValue("http");
  // The name is required.
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Name can't be blank")).toBeVisible();
  await page.getByLabel("2. Name integration").fill("Disk monitor");
  await page.getByRole("switch", { name: "Active" }).check();

  // The sample is checked as it is typed; parsing needs valid, non-empty JSON.
  const sampleBox = page.getByLabel("Sample payload");
  const parse = page.getByRole("button", { name: "Parse payload fields" });
  await expect(parse).toBeDisabled();
  await sampleBox.fill('{"alert": ');
  await expect(parse).toBeDisabled();
  await expect(sampleBox).toHaveAttribute("aria-invalid", "true");
  await sampleBox.fill(JSON.stringify(sample, null, 2));
  await expect(parse).toBeEnabled();
  await parse.click();
  await expect(page.getByText("Sample payload has been parsed. You can now map the fields.")).toBeVisible();

  // Only fields of an allowed type are offered, each with its value in the sample: a start time takes a datetime or a number.
  const startTime = page.getByRole("combobox", { name: "Payload alert key for Start time" });
  await startTime.click();
  await expect(page.getByRole("listbox", { name: "Payload alert key for Start time" }).getByRole("option")).toHaveText(['when DateTime: "2026-01-01T10:00:00Z"']);
  await startTime.press("Escape");
  const hosts = page.getByRole("combobox", { name: "Payload alert key for Hosts" });
  await hosts.click();
  await expect(page.getByRole("listbox", { name: "Payload alert key for Hosts" }).getByRole("option")).toHaveText([
    'alert/name String: "Disk full"',
    'alert/level String: "high"',
    'targets Array: [{"host":"db-1"}]',
    'targets[*]/host Array: ["db-1"]',
    'targets[0]/host String: "db-1"',
  ]);
  await hosts.press("Escape");

  await mapField(page, "Title", "name", "alert/name");
  await mapField(page, "Severity", "lev", "alert/level");
  await mapField(page, "Hosts", "host", "targets[0]/host");
  await mapField(page, "Start time", "wh", "when");

  // The preview is the alert this sample would open.
  const preview = page.getByRole("region", { name: "Alert preview" });
  await expect(preview).toContainText("TitleDisk full");
  await expect(preview).toContainText("SeverityHigh");
  await expect(preview).toContainText("Hostsdb-1");
  await expect(preview).toContainText("Start time2026-01-01T10:00:00.000Z");
  await page.screenshot({ path: test.info().outputPath("mapper.png"), fullPage: true });

  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Integration successfully saved")).toBeVisible();
  await expect(page.getByRole("tab", { name: "View credentials" })).toHaveAttribute("aria-selected", "true");
  const webhookUrl = await page.getByLabel("Webhook URL").inputValue();
  expect(webhookUrl).toMatch(new RegExp(`^${baseURL}/${project.path_with_namespace}/alerts/notify/disk-monitor/[0-9a-f]{16}\\.json$`));
  await expect(page.getByLabel("Authorization key")).toHaveValue(/^[0-9a-f]{32}$/);
  const row = page.getByRole("row").filter({ hasText: "Disk monitor" });
  await expect(row.getByRole("cell")).toHaveText(["Enabled", "Disk monitor", "HTTP", /Edit/]);

  // The mapping is stored in GitLab's format.
  await withFreshApi(playwright, baseURL, async (api) => {
    const listed = await api.get(integrationsPath(project.id), { headers: asToken(maintainer.token) });
    const [saved] = (await listed.json()) as Integration[];
    expect(saved).toMatchObject({
      name: "Disk monitor",
      active: true,
      payload_example: JSON.stringify(sample, null, 2),
      payload_attribute_mapping: {
        title: { path: ["alert", "name"], type: "string", label: "alert/name" },
        severity: { path: ["alert", "level"], type: "string", label: "alert/level" },
        hosts: { path: ["targets", 0, "host"], type: "string", label: "targets[0]/host" },
        start_time: { path: ["when"], type: "datetime", label: "when" },
      },
    });
  });

  // Send a test alert of the same shape.
  await page.getByRole("tab", { name: "Send test alert" }).click();
  const payloadBox = page.getByLabel("Alert test payload");
  const send = page.getByRole("button", { name: "Send" });
  // The box starts with the saved sample.
  await expect(payloadBox).toHaveValue(JSON.stringify(sample, null, 2));
  await expect(send).toBeEnabled();
  await payloadBox.fill("{oops");
  await expect(send).toBeDisabled();
  await payloadBox.fill(
    JSON.stringify({ alert: { name: "Disk almost full", level: "medium" }, targets: [{ host: "db-2" }], when: "2026-01-02T08:00:00Z" }),
  );
  await send.click();
  await expect(page.getByText("The test alert should now be visible in your alerts list.")).toBeVisible();

  // The alert list shows the mapped alert.
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/alert_management$`));
  await expect(page.getByRole("link", { name: "Open" })).toHaveAttribute("aria-current", "page");
  const alertRow = page.getByRole("row").filter({ hasText: "Disk almost full" });
  await expect(alertRow.getByRole("cell").nth(0)).toHaveText("Medium");
  await expect(alertRow.getByRole("cell").nth(2)).toHaveText("#1 Disk almost full");
  await expect(alertRow.getByRole("cell").nth(3)).toHaveText("1");
  await expect(alertRow.getByRole("cell").nth(4)).toHaveText("None");
  await expect(alertRow.getByRole("combobox", { name: "Status of alert #1" })).toHaveValue("triggered");
  await page.screenshot({ path: test.info().outputPath("alert-list.png"), fullPage: true });

  // Its details page.
  await alertRow.getByRole("link", { name: "#1 Disk almost full" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/alert_management/1/details$`));
  await expect(page.getByRole("heading", { name: "#1 Disk almost full" })).toBeVisible();
  const details = page.getByRole("definition");
  const overview = page.locator("dl", { has: page.getByText("Monitoring tool") });
  await expect(overview).toContainText("SeverityMedium");
  await expect(overview).toContainText("Hostsdb-2");
  await expect(overview).toContainText("Start time2026-01-02 08:00:00 UTC");
  await expect(overview).toContainText("Events1");
  await expect(overview.getByRole("button", { name: "Create incident" })).toBeVisible();
  expect(await details.count()).toBeGreaterThan(5);
  await expect(page.getByRole("region", { name: "Full payload" })).toContainText('"name": "Disk almost full"');
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText("logged an alert from Disk monitor");

  // Acknowledge it from the list; the details page records who did it.
  await page.getByRole("link", { name: "Alerts", exact: true }).first().click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/alert_management$`));
  // The client-side navigation may still be replacing the list it showed from its cache.
  await page.waitForLoadState("networkidle");
  await changeStatus(page, 1, "acknowledged", "Alert #1 acknowledged.");
  await page.getByRole("link", { name: "Acknowledged" }).click();
  await expect(page.getByRole("row").filter({ hasText: "Disk almost full" })).toBeVisible();
  await page.getByRole("link", { name: "#1 Disk almost full" }).click();
  const activity = page.getByRole("region", { name: "Activity feed" });
  const note = activity.getByRole("listitem").filter({ hasText: "changed the status to Acknowledged" });
  await expect(note).toContainText(`@${maintainer.username}`);
  await expect(note.locator("strong", { hasText: "Acknowledged" })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("alert-details.png"), fullPage: true });
});

test("a saved sample is locked until the Maintainer agrees to re-map; editing clears the mapping", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const integration = await createIntegration(request, owner.token, project.id, {
    name: "Mapped",
    payload_example: JSON.stringify(sample),
    payload_attribute_mapping: { title: { path: ["alert", "name"], type: "string", label: "alert/name" } },
  });

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Edit integration Mapped" }).click();
  await expect(page.getByLabel("1. Select integration type")).toBeDisabled();
  await expect(page.getByLabel("2. Name integration")).toHaveValue("Mapped");
  await expect(page.getByLabel("Sample payload")).toBeDisabled();
  await expect(page.getByRole("combobox", { name: "Payload alert key for Title" })).toHaveValue("alert/name");
  await expect(page.getByRole("region", { name: "Alert preview" })).toContainText("TitleDisk full");

  await page.getByRole("button", { name: "Edit payload" }).click();
  const dialog = page.getByRole("dialog", { name: "Reset the mapping" });
  await expect(dialog).toContainText("If you edit the payload, you must re-map the fields again.");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByLabel("Sample payload")).toBeDisabled();

  await page.getByRole("button", { name: "Edit payload" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Proceed with editing" }).click();
  await expect(page.getByLabel("Sample payload")).toBeEnabled();
  await expect(page.getByRole("combobox", { name: "Payload alert key for Title" })).toHaveCount(0);
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("The integration is saved.")).toBeVisible();

  await withFreshApi(playwright, baseURL, async (api) => {
    const response = await api.get(`${integrationsPath(project.id)}/${integration.id}`, { headers: asToken(owner.token) });
    expect(await response.json()).toMatchObject({ payload_attribute_mapping: {} });
  });
});

test("resetting the key in the browser makes the receiver refuse the old key", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const integration = await createIntegration(request, owner.token, project.id, { name: "Pager" });

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Edit integration Pager" }).click();
  await page.getByRole("tab", { name: "View credentials" }).click();
  const key = page.getByLabel("Authorization key");
  await expect(key).toHaveValue(integration.token);
  await expect(page.getByLabel("Webhook URL")).toHaveValue(integration.url);

  await page.getByRole("button", { name: "Reset Key" }).click();
  const dialog = page.getByRole("dialog", { name: "Reset Key" });
  await expect(dialog).toContainText("If you reset the authorization key for this project, you must update the key in every enabled alert source.");
  await dialog.getByRole("button", { name: "Reset Key" }).click();
  await expect(page.getByText("The authorization key has been reset.")).toBeVisible();
  await expect(key).not.toHaveValue(integration.token);
  const newKey = await key.inputValue();
  expect(newKey).toMatch(/^[0-9a-f]{32}$/);

  await withFreshApi(playwright, baseURL, async (api) => {
    const old = await postAlert(api, receiverPath(integration), { title: "old" }, bearer(integration.token));
    expect(old.status()).toBe(401);
    expect(await old.json()).toEqual({ message: "401 Unauthorized" });
    const fresh = await postAlert(api, receiverPath(integration), { title: "new" }, bearer(newKey));
    expect(fresh.status()).toBe(200);
  });
});

test("deleting an integration asks first; the alert settings are saved", async ({ page, request, baseURL, playwright }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await createIntegration(request, owner.token, project.id, { name: "Old monitor", active: false });
  await createIntegration(request, owner.token, project.id, { name: "Prometheus", type: "prometheus" });

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await expect(page.getByRole("row").filter({ hasText: "Old monitor" }).getByRole("cell")).toHaveText(["Disabled", "Old monitor", "HTTP", /Edit/]);
  await expect(page.getByRole("row").filter({ hasText: "Prometheus" }).getByRole("cell")).toHaveText(["Enabled", "Prometheus", "Prometheus", /Edit/]);

  await page.getByRole("button", { name: "Delete integration Old monitor" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete integration" });
  await expect(dialog).toContainText(
    "If you delete the Old monitor integration, alerts are no longer sent from this endpoint. This action cannot be undone.",
  );
  await dialog.getByRole("button", { name: "Delete integration" }).click();
  await expect(page.getByRole("row").filter({ hasText: "Old monitor" })).toHaveCount(0);
  await expect(page.getByRole("row").filter({ hasText: "Prometheus" })).toHaveCount(1);

  await page.getByRole("tab", { name: "Alert settings" }).click();
  const create = page.getByRole("checkbox", { name: "Create an incident. Incidents are created for each alert triggered." });
  const autoClose = page.getByRole("checkbox", {
    name: "Automatically close associated incident when a recovery alert notification resolves an alert",
  });
  await expect(create).not.toBeChecked();
  await expect(autoClose).toBeChecked();
  await create.check();
  await autoClose.uncheck();
  await saveAlertSettings(page, { playwright, baseURL }, project.id, owner.token, { create_incident: true, auto_close_incident: false, send_email: false });
  await expect(create).toBeChecked();
  await expect(autoClose).not.toBeChecked();
});

test("a Maintainer turns on alert emails on the alert settings page", async ({ page, request, baseURL, playwright }) => {
  const { owner, project } = await signInAsMaintainer(page, request);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("tab", { name: "Alert settings" }).click();
  const sendEmail = page.getByRole("checkbox", { name: "Send a single email notification to Owners and Maintainers for new alerts." });
  await expect(sendEmail).not.toBeChecked();
  await sendEmail.check();
  await saveAlertSettings(page, { playwright, baseURL }, project.id, owner.token, { create_incident: false, auto_close_incident: true, send_email: true });
  await expect(sendEmail).toBeChecked();
});

test("a Maintainer turns alert emails off on their profile's Notifications page, and gets none", async ({ page, request }, testInfo) => {
  const owner = await createUser(request);
  const maintainer = await createUser(request);
  const name = uniqueName("Mailed");
  const project = await createProject(request, owner.token, { name });
  await addMember(request, owner.token, project.id, maintainer.id, 40);
  await request.put(`/api/v4/projects/${project.id}/alert_management/settings`, { headers: asToken(owner.token), data: { send_email: true } });
  const integration = await createIntegration(request, owner.token, project.id);

  await signIn(page, maintainer.username, maintainer.password);
  await page.goto("/profile");
  await page.getByRole("link", { name: "Notifications" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Notifications");
  const alertEmails = page.getByRole("group", { name: "Alerts" }).getByRole("checkbox", { name: "Email me about alerts of projects I maintain" });
  await expect(alertEmails).toBeChecked();
  await alertEmails.uncheck();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Notification settings saved.")).toBeVisible();
  await page.reload();
  await expect(alertEmails).not.toBeChecked();

  const fired = await postAlert(request, receiverPath(integration), { title: "Cache misses" }, bearer(integration.token));
  expect(fired.status()).toBe(200);
  await expect.poll(() => mailedSubjects(testInfo.project.name, owner.email)).toEqual([`${name} | Alert: Cache misses`]);
  expect(mailedSubjects(testInfo.project.name, maintainer.email)).toEqual([]);
});

test("Developers cannot open the alert settings (404) but triage alerts; Reporters only read them", async ({ page, request }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const reporter = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, developer.id, 30);
  await addMember(request, owner.token, project.id, reporter.id, 20);
  const integration = await createIntegration(request, owner.token, project.id);
  await postAlert(request, receiverPath(integration), { title: "Queue stuck", severity: "low" }, bearer(integration.token));

  await signIn(page, developer.username, developer.password);
  const settings = await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  expect(settings?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.goto(`/${project.path_with_namespace}`);
  await expect(page.getByRole("link", { name: "Alert integrations and settings" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Monitor settings" })).toHaveCount(0);
  await page.getByRole("link", { name: "View alerts" }).click();
  await changeStatus(page, 1, "resolved", "Alert #1 resolved. It is no longer in this list: see the Resolved tab.");
  await expect(page.getByRole("row").filter({ hasText: "#1 Queue stuck" })).toHaveCount(0);
  await page.getByRole("link", { name: "Resolved" }).click();
  await expect(page.getByRole("row").filter({ hasText: "#1 Queue stuck" })).toBeVisible();
  await page.getByRole("link", { name: "Open" }).click();
  await expect(page.getByText("No alerts to display.")).toBeVisible();

  await page.context().clearCookies();
  await signIn(page, reporter.username, reporter.password);
  await page.goto(`/${project.path_with_namespace}/-/alert_management?tab=all`);
  const row = page.getByRole("row").filter({ hasText: "#1 Queue stuck" });
  await expect(row.getByRole("cell").last()).toHaveText("Resolved");
  await expect(page.getByRole("combobox", { name: "Status of alert #1" })).toHaveCount(0);
  // Search and sort keep the tab.
  await page.getByLabel("Search alerts").fill("nothing like it");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/tab=all&search=nothing\+like\+it/);
  await expect(page.getByText("No alerts match your search.")).toBeVisible();
  expect((await page.goto(`/${project.path_with_namespace}/-/settings/operations`))?.status()).toBe(404);
});
