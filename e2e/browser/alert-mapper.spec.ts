import { expect, test, type Locator, type Page } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { bearer, createIntegration, integrationsPath, listAlerts, postAlert, receiverPath, type Integration } from "../support/alerts";
import { signIn } from "../support/browser";

const sample = {
  event: { summary: "CPU hot", level: "warn", at: 1767261600 },
  items: [{ host: "web-1" }, { host: "web-2" }],
  "a/b": "slashed key",
  a: { b: "nested key" },
};

async function mapField(page: Page, alertField: string, search: string, option: string) {
  const combobox = page.getByRole("combobox", { name: `Payload alert key for ${alertField}` });
  await combobox.click();
  await combobox.fill(search);
  await page.getByRole("listbox", { name: `Payload alert key for ${alertField}` }).getByRole("option").filter({ hasText: option }).first().click();
  await expect(combobox).toHaveValue(option);
}

function optionsOf(page: Page, alertField: string): Locator {
  return page.getByRole("listbox", { name: `Payload alert key for ${alertField}` }).getByRole("option");
}

/** Opens an alert field's dropdown, checks its options (those containing `only`, when given) and closes it. */
async function expectOptions(page: Page, alertField: string, texts: string[], only?: string) {
  const combobox = page.getByRole("combobox", { name: `Payload alert key for ${alertField}` });
  await combobox.click();
  await expect(only ? optionsOf(page, alertField).filter({ hasText: only }) : optionsOf(page, alertField)).toHaveText(texts);
  await combobox.press("Escape");
}

/** The value the preview shows for one alert field, without its explanation. */
function previewValue(preview: Locator, term: string): Locator {
  return preview.locator(".details-row").filter({ has: preview.page().locator("dt", { hasText: new RegExp(`^${term}$`) }) }).locator(".preview-value");
}

test("a Maintainer maps every host of an array, a severity value map and an epoch start time; the stored alert is the preview", async ({
  page,
  request,
}) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Add new integration" }).click();
  await page.getByLabel("2. Name integration").fill("Checkout monitor");
  await page.getByRole("switch", { name: "Active" }).check();
  await page.getByLabel("Sample payload").fill(JSON.stringify(sample, null, 2));
  await page.getByRole("button", { name: "Parse payload fields" }).click();
  await expect(page.getByText("Sample payload has been parsed. You can now map the fields.")).toBeVisible();

  // Every option shows its value in the sample; keys with a slash are quoted, so the two "a/b" differ.
  await expectOptions(page, "Title", [
    'event/summary String: "CPU hot"',
    'event/level String: "warn"',
    'items[0]/host String: "web-1"',
    'items[1]/host String: "web-2"',
    '"a/b" String: "slashed key"',
    'a/b String: "nested key"',
  ]);
  // Hosts take every host of the items; a start time takes the epoch number.
  await expectOptions(
    page,
    "Hosts",
    ['items Array: [{"host":"web-1"},{"host":"web-2"}]', 'items[*]/host Array: ["web-1","web-2"]', 'items[0]/host String: "web-1"', 'items[1]/host String: "web-2"'],
    "items",
  );
  await expectOptions(page, "Start time", ["event/at Number: 1767261600"]);

  await mapField(page, "Title", "summ", "event/summary");
  await mapField(page, "Hosts", "[*]", "items[*]/host");
  await mapField(page, "Start time", "at", "event/at");
  await mapField(page, "Severity", "level", "event/level");

  // A value map for the severity: crit is critical, warn is low.
  const severityRow = page.getByRole("row").filter({ has: page.getByRole("combobox", { name: "Payload alert key for Severity" }) });
  await severityRow.locator("summary").click();
  await severityRow.getByRole("button", { name: "Add a value for Severity" }).click();
  await severityRow.getByLabel("Payload value 1 for Severity", { exact: true }).fill("crit");
  await severityRow.getByLabel("Severity value 1").selectOption("critical");
  await severityRow.getByRole("button", { name: "Add a value for Severity" }).click();
  await severityRow.getByLabel("Payload value 2 for Severity", { exact: true }).fill("warn");
  await severityRow.getByLabel("Severity value 2").selectOption("low");

  const preview = page.getByRole("region", { name: "Alert preview" });
  await expect(previewValue(preview, "Title")).toHaveText("CPU hot");
  await expect(previewValue(preview, "Hosts")).toHaveText("web-1, web-2");
  await expect(previewValue(preview, "Start time")).toHaveText("2026-01-01T10:00:00.000Z");
  await expect(previewValue(preview, "Severity")).toHaveText("Low");
  await expect(preview).toContainText("SeverityLow (value map: warn → low)");
  // An empty field says why it is empty.
  await expect(preview).toContainText('ServiceNone (not mapped, and the sample has no standard key "service", so it stays empty)');
  const shown = {
    title: await previewValue(preview, "Title").innerText(),
    hosts: await previewValue(preview, "Hosts").innerText(),
    severity: await previewValue(preview, "Severity").innerText(),
    startedAt: await previewValue(preview, "Start time").innerText(),
  };
  await page.screenshot({ path: test.info().outputPath("mapper.png"), fullPage: true });

  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Integration successfully saved")).toBeVisible();
  const webhookUrl = await page.getByLabel("Webhook URL").inputValue();
  const key = await page.getByLabel("Authorization key").inputValue();

  const [saved] = (await (await request.get(integrationsPath(project.id), { headers: asToken(owner.token) })).json()) as Integration[];
  expect(saved!.payload_attribute_mapping).toEqual({
    title: { path: ["event", "summary"], type: "string", label: "event/summary" },
    hosts: { path: ["items", { each: true }, "host"], type: "array", label: "items[*]/host" },
    start_time: { path: ["event", "at"], type: "number", label: "event/at" },
    severity: { path: ["event", "level"], type: "string", label: "event/level", values: { crit: "critical", warn: "low" } },
  });

  const answer = await postAlert(request, receiverPath({ url: webhookUrl }), sample, bearer(key));
  expect(answer.status(), await answer.text()).toBe(200);
  const [stored] = await listAlerts(request, owner.token, project.id);
  expect({
    title: stored!.title,
    hosts: stored!.hosts.join(", "),
    severity: stored!.severity,
    startedAt: stored!.started_at,
  }).toEqual({ ...shown, severity: shown.severity.toLowerCase() });
});

test("Suggest a mapping fills the table from the sample's names; the Maintainer changes one, and the stored alert is the preview", async ({
  page,
  request,
}) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Add new integration" }).click();
  await page.getByLabel("2. Name integration").fill("Cron checks");
  await page.getByRole("switch", { name: "Active" }).check();
  const checkSample = {
    check: { name: "Disk almost full", priority: "P2", startedAt: 1767261600, output: "sda1 at 97%" },
    targets: [{ hostname: "db-1" }, { hostname: "db-2" }],
    incident_id: "INC-42",
  };
  await page.getByLabel("Sample payload").fill(JSON.stringify(checkSample));
  await expect(page.getByRole("button", { name: "Suggest a mapping" })).toHaveCount(0);
  await page.getByRole("button", { name: "Parse payload fields" }).click();
  await page.getByRole("button", { name: "Suggest a mapping" }).click();
  await expect(page.getByText("6 fields were suggested by their names. Check each one in the table and the preview.")).toBeVisible();
  const combobox = (field: string) => page.getByRole("combobox", { name: `Payload alert key for ${field}` });
  await expect(combobox("Title")).toHaveValue("check/name");
  await expect(combobox("Description")).toHaveValue("check/output");
  await expect(combobox("Start time")).toHaveValue("check/startedAt");
  await expect(combobox("Hosts")).toHaveValue("targets[*]/hostname");
  await expect(combobox("Severity")).toHaveValue("check/priority");
  await expect(combobox("Fingerprint")).toHaveValue("incident_id");
  await expect(combobox("Service")).toHaveValue("");
  const preview = page.getByRole("region", { name: "Alert preview" });
  await expect(previewValue(preview, "Title")).toHaveText("Disk almost full");
  await expect(preview).toContainText("SeverityHigh (value map: P2 → high)");
  await expect(previewValue(preview, "Hosts")).toHaveText("db-1, db-2");

  // Field by field: the description is better as the title here.
  await mapField(page, "Title", "output", "check/output");
  await expect(previewValue(preview, "Title")).toHaveText("sda1 at 97%");
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Integration successfully saved")).toBeVisible();
  const [saved] = (await (await request.get(integrationsPath(project.id), { headers: asToken(owner.token) })).json()) as Integration[];
  expect(saved!.payload_attribute_mapping).toEqual({
    title: { path: ["check", "output"], type: "string", label: "check/output" },
    description: { path: ["check", "output"], type: "string", label: "check/output" },
    start_time: { path: ["check", "startedAt"], type: "number", label: "check/startedAt" },
    hosts: { path: ["targets", { each: true }, "hostname"], type: "array", label: "targets[*]/hostname" },
    severity: { path: ["check", "priority"], type: "string", label: "check/priority", values: { P2: "high" } },
    fingerprint: { path: ["incident_id"], type: "string", label: "incident_id" },
  });
  const answer = await postAlert(request, receiverPath({ url: await page.getByLabel("Webhook URL").inputValue() }), checkSample, bearer(await page.getByLabel("Authorization key").inputValue()));
  expect(answer.status(), await answer.text()).toBe(200);
  const [stored] = await listAlerts(request, owner.token, project.id);
  expect(stored).toMatchObject({ title: "sda1 at 97%", severity: "high", hosts: ["db-1", "db-2"], started_at: "2026-01-01T10:00:00.000Z" });
});

test("the mapper fits a 390 px wide screen: the page does not scroll sideways", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await createIntegration(request, owner.token, project.id, {
    name: "Narrow",
    payload_example: JSON.stringify({ ...sample, note: "a rather long value ".repeat(10) }),
    payload_attribute_mapping: {
      hosts: { path: ["items", { each: true }, "host"], type: "array", label: "items[*]/host" },
      severity: { path: ["event", "level"], type: "string", label: "event/level", values: { warn: "low" }, fallback: "info" },
      description: { path: ["note"], type: "string", label: "note" },
    },
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Edit integration Narrow" }).click();
  const severityRow = page.getByRole("row").filter({ has: page.getByRole("combobox", { name: "Payload alert key for Severity" }) });
  await expect(severityRow.getByLabel("Payload value 1 for Severity", { exact: true })).toHaveValue("warn");
  await expect(severityRow.getByLabel("Fallback for Severity")).toHaveValue("info");
  await expect(page.getByRole("region", { name: "Alert preview" })).toContainText("Hostsweb-1, web-2");
  await page.getByRole("combobox", { name: "Payload alert key for Description" }).click();
  await expect(optionsOf(page, "Description").first()).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("mapper-390.png"), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("a mapping that reaches the server reading an inherited name (constructor) is refused with the form's error", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await createIntegration(request, owner.token, project.id, { name: "Guarded", payload_example: JSON.stringify({ alert: { name: "Disk full" } }) });
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Edit integration Guarded" }).click();
  await mapField(page, "Title", "name", "alert/name");
  // The form offers only the sample's own keys; a request written by hand can name any step.
  await page.route(`**/${project.path_with_namespace}/-/settings/operations`, async (route) => {
    const sent = route.request();
    const body = sent.postData() ?? "";
    if (sent.method() === "POST" && sent.headers()["next-action"] && body.includes('"path":["alert","name"]')) {
      await route.continue({ postData: body.replace('"path":["alert","name"]', '"path":["alert","constructor"]') });
    } else {
      await route.continue();
    }
  });
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText('Payload attribute mapping title reads "constructor", which is not a key of the sample payload')).toBeVisible();
  const response = await request.get(integrationsPath(project.id), { headers: asToken(owner.token) });
  expect(((await response.json()) as Integration[]).map((integration) => integration.payload_attribute_mapping)).toEqual([{}]);
});
