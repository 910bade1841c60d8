import { expect, test } from "@playwright/test";
import { addMember, asToken, createProject, createUser } from "../support/api";
import { bearer, createIntegration, integrationsPath, receiverPath } from "../support/alerts";
import { signIn } from "../support/browser";

/** A heartbeat integration as the API renders it. */
interface HeartbeatIntegration {
  id: number;
  name: string;
  type: "heartbeat";
  active: boolean;
  endpoint_identifier: string;
  url: string;
  token: string;
  pagerduty_events_url: null;
  opsgenie_alerts_url: null;
  heartbeat: { interval_seconds: number; grace_seconds: number; last_ping_at: string | null; next_due_at: string | null; status: string };
  created_at: string;
}

const ok = { status: "ok" };

test("a heartbeat made through the API takes pings by GET with its token and by POST with or without a body, and refuses what it should", async ({
  request,
  baseURL,
}) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const created = await request.post(integrationsPath(project.id), {
    headers: asToken(owner.token),
    data: { name: "Backup job", type: "heartbeat", active: true, heartbeat_interval_seconds: 300, heartbeat_grace_seconds: 30 },
  });
  expect(created.status(), await created.text()).toBe(201);
  const heartbeat = (await created.json()) as HeartbeatIntegration;
  expect(heartbeat).toMatchObject({
    name: "Backup job",
    type: "heartbeat",
    active: true,
    url: `${baseURL}/${project.path_with_namespace}/alerts/heartbeat/backup-job/${heartbeat.endpoint_identifier}`,
    pagerduty_events_url: null,
    opsgenie_alerts_url: null,
    heartbeat: { interval_seconds: 300, grace_seconds: 30, last_ping_at: null, status: "waiting" },
  });
  // Due interval plus grace after its creation.
  expect(Math.abs(Date.parse(heartbeat.heartbeat.next_due_at!) - (Date.parse(heartbeat.created_at) + 330_000))).toBeLessThan(5_000);

  // Out of range, or on another type: 400 in the API's shape, and nothing made.
  const refused = await request.post(integrationsPath(project.id), {
    headers: asToken(owner.token),
    data: { name: "Too often", type: "heartbeat", active: true, heartbeat_interval_seconds: 59, heartbeat_grace_seconds: 604_801 },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.json()).toEqual({
    message: {
      heartbeat_interval_seconds: ["must be a whole number of seconds from 60 to 604800"],
      heartbeat_grace_seconds: ["must be a whole number of seconds from 0 to 604800"],
    },
  });
  const onHttp = await request.post(integrationsPath(project.id), {
    headers: asToken(owner.token),
    data: { name: "Not a heartbeat", type: "http", active: true, heartbeat_interval_seconds: 300 },
  });
  expect(onHttp.status()).toBe(400);
  expect(await onHttp.json()).toEqual({ message: { heartbeat_interval_seconds: ["is only for heartbeat integrations"] } });
  const changed = await request.put(`${integrationsPath(project.id)}/${heartbeat.id}`, {
    headers: asToken(owner.token),
    data: { heartbeat_grace_seconds: -1 },
  });
  expect(changed.status()).toBe(400);
  expect(await changed.json()).toEqual({ message: { heartbeat_grace_seconds: ["must be a whole number of seconds from 0 to 604800"] } });
  const listed = await request.get(integrationsPath(project.id), { headers: asToken(owner.token) });
  expect(((await listed.json()) as HeartbeatIntegration[]).map((integration) => integration.name)).toEqual(["Backup job"]);

  // A cron one-liner: GET with the token in the query.
  const path = receiverPath(heartbeat);
  const byGet = await request.get(`${path}?token=${heartbeat.token}`);
  expect(byGet.status()).toBe(200);
  expect(byGet.headers()["content-type"]).toBe("application/json");
  expect(await byGet.json()).toEqual(ok);
  const afterGet = (await (await request.get(`${integrationsPath(project.id)}/${heartbeat.id}`, { headers: asToken(owner.token) })).json()) as HeartbeatIntegration;
  expect(afterGet.heartbeat.status).toBe("up");
  const firstPing = Date.parse(afterGet.heartbeat.last_ping_at!);
  expect(Date.parse(afterGet.heartbeat.next_due_at!)).toBe(firstPing + 330_000);

  // POST with the key as a Bearer token: no body, or any body.
  const empty = await request.post(path, { headers: bearer(heartbeat.token) });
  expect(empty.status()).toBe(200);
  expect(await empty.json()).toEqual(ok);
  const withBody = await request.post(`${path}.json`, { headers: { ...bearer(heartbeat.token), "Content-Type": "text/plain" }, data: "backup done" });
  expect(withBody.status()).toBe(200);
  expect(await withBody.json()).toEqual(ok);
  const afterPost = (await (await request.get(`${integrationsPath(project.id)}/${heartbeat.id}`, { headers: asToken(owner.token) })).json()) as HeartbeatIntegration;
  expect(Date.parse(afterPost.heartbeat.last_ping_at!)).toBeGreaterThanOrEqual(firstPing);

  // A wrong or missing key: 401, as the receiver answers.
  for (const response of [await request.get(`${path}?token=wrong`), await request.post(path, { headers: bearer("wrong") }), await request.get(path)]) {
    expect(response.status()).toBe(401);
    expect(await response.json()).toEqual({ message: "401 Unauthorized" });
  }
  // Alerts posted to its notify URL are refused as for no integration; GET is for heartbeats only.
  const notify = `/${project.path_with_namespace}/alerts/notify/backup-job/${heartbeat.endpoint_identifier}.json`;
  const posted = await request.post(notify, { headers: bearer(heartbeat.token), data: { title: "Not for a heartbeat" } });
  expect(posted.status()).toBe(403);
  expect(await posted.json()).toEqual({ message: "403 Forbidden" });
  const http = await createIntegration(request, owner.token, project.id);
  const getOnNotify = await request.get(`${receiverPath(http)}?token=${http.token}`);
  expect(getOnNotify.status()).toBe(405);
  expect(getOnNotify.headers()["allow"]).toBe("POST");

  // Inactive: the receiver's answer to an inactive integration.
  const deactivated = await request.put(`${integrationsPath(project.id)}/${heartbeat.id}`, { headers: asToken(owner.token), data: { active: false } });
  expect(((await deactivated.json()) as HeartbeatIntegration).heartbeat).toMatchObject({ status: "inactive", next_due_at: null });
  const inactive = await request.get(`${path}?token=${heartbeat.token}`);
  expect(inactive.status()).toBe(403);
  expect(await inactive.json()).toEqual({ message: "403 Forbidden" });
});

test("a Maintainer adds a heartbeat on the settings page, pings it, and sees its last ping in the integration list", async ({ page, request }) => {
  const owner = await createUser(request);
  const maintainer = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, maintainer.id, 40);
  await signIn(page, maintainer.username, maintainer.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);

  await page.getByRole("button", { name: "Add new integration" }).click();
  await page.getByLabel("1. Select integration type").selectOption("heartbeat");
  await expect(page.getByLabel("4. Payload format")).toHaveCount(0);
  await page.getByLabel("2. Name integration").fill("Nightly backup");
  await page.getByRole("switch", { name: "Active" }).check();
  // The interval is required and bounded.
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Interval can't be blank")).toBeVisible();
  await page.getByLabel("4. Expected interval (seconds)").fill("30");
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Interval must be at least 60 seconds")).toBeVisible();
  await page.getByLabel("4. Expected interval (seconds)").fill("86400");
  await page.getByLabel("5. Grace period (seconds)").fill("900");
  await page.getByRole("button", { name: "Save integration" }).click();
  await expect(page.getByText("Integration successfully saved")).toBeVisible();

  // The credentials: the ping URL, its key and a line for cron.
  await expect(page.getByRole("tab", { name: "View credentials" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab", { name: "Send test alert" })).toBeDisabled();
  const pingUrl = await page.getByLabel("Ping URL").inputValue();
  expect(pingUrl).toMatch(new RegExp(`/${project.path_with_namespace}/alerts/heartbeat/nightly-backup/[0-9a-f]{16}$`));
  const key = await page.getByLabel("Authorization key").inputValue();
  expect(key).toMatch(/^[0-9a-f]{32}$/);
  await expect(page.getByLabel("Cron example")).toHaveValue(`curl -fsS -m 10 --retry 3 "${pingUrl}?token=${key}"`);
  await expect(page.getByLabel("PagerDuty Events API v2 URL")).toHaveCount(0);

  const row = page.getByRole("row").filter({ hasText: "Nightly backup" });
  await expect(row.getByRole("cell")).toHaveText(["Enabled", "Nightly backupWaiting for first ping No ping yet", "Heartbeat", /Edit/]);

  // The API sees what the page saved.
  const [saved] = (await (await request.get(integrationsPath(project.id), { headers: asToken(maintainer.token) })).json()) as HeartbeatIntegration[];
  expect(saved).toMatchObject({ name: "Nightly backup", type: "heartbeat", url: pingUrl, heartbeat: { interval_seconds: 86400, grace_seconds: 900, status: "waiting" } });

  // Pinged by GET (cron) and by POST: the list shows it up, with its last ping.
  const path = new URL(pingUrl).pathname;
  const byGet = await request.get(`${path}?token=${key}`);
  expect(byGet.status()).toBe(200);
  expect(await byGet.json()).toEqual(ok);
  const byPost = await request.post(path, { headers: bearer(key), data: { job: "backup", result: "ok" } });
  expect(byPost.status()).toBe(200);
  expect(await byPost.json()).toEqual(ok);
  await page.reload();
  const pinged = page.getByRole("row").filter({ hasText: "Nightly backup" });
  await expect(pinged.getByRole("cell")).toHaveText(["Enabled", /^Nightly backupUp Last ping (just now|\d+ seconds? ago)$/, "Heartbeat", /Edit/]);
  const lastPing = pinged.locator("time");
  const [listed] = (await (await request.get(integrationsPath(project.id), { headers: asToken(maintainer.token) })).json()) as HeartbeatIntegration[];
  await expect(lastPing).toHaveAttribute("datetime", listed!.heartbeat.last_ping_at!);
  expect(listed!.heartbeat.status).toBe("up");

  // Editing keeps its settings in the form.
  await pinged.getByRole("button", { name: "Edit integration Nightly backup" }).click();
  await expect(page.getByLabel("4. Expected interval (seconds)")).toHaveValue("86400");
  await expect(page.getByLabel("5. Grace period (seconds)")).toHaveValue("900");
  await page.screenshot({ path: test.info().outputPath("heartbeat.png"), fullPage: true });
});
