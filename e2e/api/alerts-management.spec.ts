import { createHash } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createToken, createUser, expectJson, isoTimestamp, type CreatedUser } from "../support/api";
import {
  alertsPath,
  bearer,
  createIntegration,
  integrationsPath,
  listAlerts,
  postAlert,
  receiverPath,
  type Alert,
  type Integration,
} from "../support/alerts";

// The alert management REST API: integrations, payload fields, test alerts, settings and alerts, with their role checks.

const forbidden = { message: "403 Forbidden" };

interface Team {
  owner: CreatedUser;
  maintainer: CreatedUser;
  developer: CreatedUser;
  reporter: CreatedUser;
  guest: CreatedUser;
  outsider: CreatedUser;
  project: Awaited<ReturnType<typeof createProject>>;
}

async function createTeam(request: APIRequestContext): Promise<Team> {
  const [owner, maintainer, developer, reporter, guest, outsider] = await Promise.all(Array.from({ length: 6 }, () => createUser(request)));
  const project = await createProject(request, owner!.token);
  await addMember(request, owner!.token, project.id, maintainer!.id, 40);
  await addMember(request, owner!.token, project.id, developer!.id, 30);
  await addMember(request, owner!.token, project.id, reporter!.id, 20);
  await addMember(request, owner!.token, project.id, guest!.id, 10);
  return { owner: owner!, maintainer: maintainer!, developer: developer!, reporter: reporter!, guest: guest!, outsider: outsider!, project };
}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

test.describe("alert management API", () => {
  test("integrations: Maintainers create, list, read, update, reset the key of and delete them", async ({ request, baseURL }) => {
    const team = await createTeam(request);
    const { project, maintainer } = team;
    const path = integrationsPath(project.id);
    const mapping = { title: { path: ["alert", "name"], type: "string", label: "alert/name" } };
    const example = JSON.stringify({ alert: { name: "Disk" } });

    const createdResponse = await request.post(path, {
      headers: asToken(maintainer.token),
      data: { name: "Nagios Prod", type: "http", active: true, payload_example: example, payload_attribute_mapping: mapping },
    });
    const created = (await createdResponse.json()) as Integration;
    const expected = {
      id: expect.any(Number),
      name: "Nagios Prod",
      type: "http",
      active: true,
      endpoint_identifier: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: `${baseURL}/${project.path_with_namespace}/alerts/notify/nagios-prod/${created.endpoint_identifier}.json`,
      token: expect.stringMatching(/^[0-9a-f]{32}$/),
      payload_example: example,
      payload_attribute_mapping: mapping,
      payload_format: "auto",
      last_payload_format: null,
      pagerduty_events_url: `${baseURL}/${project.path_with_namespace}/alerts/notify/nagios-prod/${created.endpoint_identifier}/v2/enqueue`,
      opsgenie_alerts_url: `${baseURL}/${project.path_with_namespace}/alerts/notify/nagios-prod/${created.endpoint_identifier}/v2/alerts`,
      sns_subscription_confirmation: null,
      // Only heartbeat integrations have a schedule.
      heartbeat: null,
      created_at: isoTimestamp,
      updated_at: isoTimestamp,
    };
    await expectJson(createdResponse, 201, expected);

    // Defaults: inactive, empty example and mapping.
    const prometheus = await createIntegration(request, maintainer.token, project.id, { name: "Prometheus", type: "prometheus", active: false });
    expect(prometheus).toMatchObject({ type: "prometheus", active: false, payload_example: "{}", payload_attribute_mapping: {} });
    // The Prometheus integration's URL is the project's Prometheus endpoint, as GitLab shows it, so a project has one.
    expect(prometheus.url).toBe(`${baseURL}/${project.path_with_namespace}/prometheus/alerts/notify.json`);
    await expectJson(await request.post(path, { headers: asToken(maintainer.token), data: { name: "Another", type: "prometheus", active: false } }), 400, {
      message: { type: ["Multiple integrations of a single type are not supported for this project"] },
    });

    await expectJson(await request.get(path, { headers: asToken(maintainer.token) }), 200, [{ ...expected, token: created.token }, prometheus]);
    await expectJson(await request.get(`${path}/${created.id}`, { headers: asToken(team.owner.token) }), 200, { ...expected, token: created.token });

    // Renaming keeps the mapping; a new example without a mapping clears it; a new example with a mapping keeps that.
    const renamed = await request.put(`${path}/${created.id}`, { headers: asToken(maintainer.token), data: { name: "Nagios", active: false } });
    await expectJson(renamed, 200, { ...expected, name: "Nagios", active: false, token: created.token, url: expect.stringContaining("/alerts/notify/nagios/"), pagerduty_events_url: expect.stringContaining("/alerts/notify/nagios/"), opsgenie_alerts_url: expect.stringContaining("/alerts/notify/nagios/") });
    const newExample = JSON.stringify({ alert: { summary: "Disk" } });
    const cleared = await request.put(`${path}/${created.id}`, { headers: asToken(maintainer.token), data: { payload_example: newExample } });
    expect(await cleared.json()).toMatchObject({ payload_example: newExample, payload_attribute_mapping: {} });
    const remapped = await request.put(`${path}/${created.id}`, {
      headers: asToken(maintainer.token),
      data: { payload_example: example, payload_attribute_mapping: mapping },
    });
    expect(await remapped.json()).toMatchObject({ payload_example: example, payload_attribute_mapping: mapping });

    // Invalid input.
    await expectJson(await request.post(path, { headers: asToken(maintainer.token), data: { name: "", type: "http", active: true } }), 400, {
      message: { name: ["can't be blank"] },
    });
    await expectJson(await request.post(path, { headers: asToken(maintainer.token), data: { name: "x", type: "email", active: true } }), 400, {
      error: "type does not have a valid value",
    });
    await expectJson(
      await request.post(path, { headers: asToken(maintainer.token), data: { name: "x", type: "http", active: true, payload_example: "{oops" } }),
      400,
      { message: { payload_example: ["is not valid JSON"] } },
    );
    await expectJson(
      await request.post(path, {
        headers: asToken(maintainer.token),
        data: { name: "x", type: "http", active: true, payload_attribute_mapping: { start_time: { path: ["a"], type: "string" } } },
      }),
      400,
      { message: { payload_attribute_mapping: ["start_time cannot take a value of type string"] } },
    );

    // Reset: a new key, the old one refused at once.
    await request.put(`${path}/${created.id}`, { headers: asToken(maintainer.token), data: { active: true } });
    await expectJson(await postAlert(request, receiverPath(created), { alert: { name: "before" } }, bearer(created.token)), 200, [{ iid: 1, title: "before" }]);
    const reset = await request.post(`${path}/${created.id}/reset_token`, { headers: asToken(maintainer.token) });
    expect(reset.status()).toBe(200);
    const afterReset = (await reset.json()) as Integration;
    expect(afterReset).toMatchObject({ id: created.id, endpoint_identifier: created.endpoint_identifier, token: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(afterReset.token).not.toBe(created.token);
    await expectJson(await postAlert(request, receiverPath(created), { title: "old key" }, bearer(created.token)), 401, { message: "401 Unauthorized" });
    await expectJson(await postAlert(request, receiverPath(created), { alert: { name: "new key" } }, bearer(afterReset.token)), 200, [{ iid: 2, title: "new key" }]);

    // Delete: 204, then gone (and its URL with it).
    const deleted = await request.delete(`${path}/${created.id}`, { headers: asToken(maintainer.token) });
    expect(deleted.status()).toBe(204);
    await expectJson(await request.get(`${path}/${created.id}`, { headers: asToken(maintainer.token) }), 404, { message: "404 Integration Not Found" });
    await expectJson(await request.delete(`${path}/${created.id}`, { headers: asToken(maintainer.token) }), 404, { message: "404 Integration Not Found" });
    await expectJson(await postAlert(request, receiverPath(created), { title: "deleted" }, bearer(afterReset.token)), 403, forbidden);
    await expectJson(await request.get(path, { headers: asToken(maintainer.token) }), 200, [prometheus]);
  });

  test("integrations are for Maintainers only: Developers get 403, outsiders 404", async ({ request }) => {
    const team = await createTeam(request);
    const integration = await createIntegration(request, team.owner.token, team.project.id);
    const path = integrationsPath(team.project.id);
    for (const user of [team.developer, team.reporter, team.guest]) {
      const headers = asToken(user.token);
      await expectJson(await request.get(path, { headers }), 403, forbidden);
      await expectJson(await request.get(`${path}/${integration.id}`, { headers }), 403, forbidden);
      await expectJson(await request.post(path, { headers, data: { name: "x", type: "http", active: true } }), 403, forbidden);
      await expectJson(await request.put(`${path}/${integration.id}`, { headers, data: { name: "y" } }), 403, forbidden);
      await expectJson(await request.delete(`${path}/${integration.id}`, { headers }), 403, forbidden);
      await expectJson(await request.post(`${path}/${integration.id}/reset_token`, { headers }), 403, forbidden);
      await expectJson(
        await request.post(`/api/v4/projects/${team.project.id}/alert_management/payload_fields`, { headers, data: { payload_example: "{}" } }),
        403,
        forbidden,
      );
      await expectJson(await request.get(`/api/v4/projects/${team.project.id}/alert_management/settings`, { headers }), 403, forbidden);
      await expectJson(await request.put(`/api/v4/projects/${team.project.id}/alert_management/settings`, { headers, data: { create_incident: true } }), 403, forbidden);
    }
    const notFound = { message: "404 Project Not Found" };
    await expectJson(await request.get(path, { headers: asToken(team.outsider.token) }), 404, notFound);
    await expectJson(await request.get(path), 401, { message: "401 Unauthorized" });
    // The integration is untouched.
    await expectJson(await request.get(`${path}/${integration.id}`, { headers: asToken(team.owner.token) }), 200, integration);
  });

  test("a read_api token reads integrations without their keys; an api token sees them", async ({ request }) => {
    const team = await createTeam(request);
    const integration = await createIntegration(request, team.maintainer.token, team.project.id);
    const path = integrationsPath(team.project.id);
    const readApi = await createToken(request, team.maintainer.id, ["read_api"]);
    const { token: key, ...withoutKey } = integration;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    await expectJson(await request.get(path, { headers: asToken(readApi.token) }), 200, [{ ...withoutKey, token: null }]);
    await expectJson(await request.get(`${path}/${integration.id}`, { headers: asToken(readApi.token) }), 200, { ...withoutKey, token: null });
    await expectJson(await request.get(`${path}/${integration.id}`, { headers: { Authorization: `Bearer ${readApi.token}` } }), 200, { ...withoutKey, token: null });
    // Changing anything (the key included) needs `api` anyway.
    await expectJson(await request.post(`${path}/${integration.id}/reset_token`, { headers: asToken(readApi.token) }), 403, {
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "api",
    });
    await expectJson(await request.get(`${path}/${integration.id}`, { headers: asToken(team.maintainer.token) }), 200, integration);
  });

  test("integrations take the extended mapping (every element, value maps, fallbacks, epoch times) and the receiver applies it", async ({ request }) => {
    const team = await createTeam(request);
    const path = integrationsPath(team.project.id);
    const headers = asToken(team.maintainer.token);
    const mapping = {
      hosts: { path: ["items", { each: true }, "host"], type: "array", label: "items[*]/host" },
      severity: { path: ["level"], type: "string", label: "level", values: { crit: "critical", warn: "low" }, fallback: "info" },
      start_time: { path: ["at"], type: "number", label: "at" },
      service: { path: ["svc"], type: "string", label: "svc", fallback: "checkout" },
      title: { path: ["a/b"], type: "string", label: '"a/b"' },
    };
    const example = JSON.stringify({ items: [{ host: "a" }], level: "warn", at: 1767261600, svc: "cart", "a/b": "Slash", a: { b: "Nested" } });
    const created = await request.post(path, {
      headers,
      data: { name: "Mapped", type: "http", active: true, payload_example: example, payload_attribute_mapping: mapping },
    });
    expect(created.status(), await created.text()).toBe(201);
    const integration = (await created.json()) as Integration;
    expect(integration.payload_attribute_mapping).toEqual(mapping);
    await expectJson(await request.get(`${path}/${integration.id}`, { headers }), 200, { ...integration });

    const alert = { items: [{ host: "web-1" }, { host: "web-2" }], level: "warn", at: 1767261600000, "a/b": "CPU hot", a: { b: "Nested" } };
    await expectJson(await postAlert(request, receiverPath(integration), alert, bearer(integration.token)), 200, [{ iid: 1, title: "CPU hot" }]);
    await postAlert(request, receiverPath(integration), { title: "Bare", items: [] }, bearer(integration.token));
    const alerts = (await listAlerts(request, team.maintainer.token, team.project.id)).sort((a, b) => a.iid - b.iid);
    expect(alerts.map(({ title, hosts, severity, service }) => ({ title, hosts, severity, service }))).toEqual([
      { title: "CPU hot", hosts: ["web-1", "web-2"], severity: "low", service: "checkout" },
      { title: "Bare", hosts: [], severity: "info", service: "checkout" },
    ]);
    expect(alerts[0]!.started_at).toBe("2026-01-01T10:00:00.000Z");

    // Bad mappings are 400s in GitLab's shapes.
    const bad = (payload_attribute_mapping: unknown) => request.put(`${path}/${integration.id}`, { headers, data: { payload_attribute_mapping } });
    await expectJson(await bad({ hosts: { path: ["items", { each: false }], type: "array" } }), 400, { error: "payload_attribute_mapping is invalid" });
    await expectJson(await bad({ hosts: { path: ["h"], type: "array", values: { a: 1 } } }), 400, { error: "payload_attribute_mapping is invalid" });
    await expectJson(await bad({ severity: { path: ["level"], type: "string", values: { crit: "urgent" } } }), 400, {
      message: { payload_attribute_mapping: ["severity values must be one of critical, high, medium, low, info, unknown, not urgent"] },
    });
    await expectJson(await bad({ title: { path: ["items", { each: true }, "host"], type: "string" } }), 400, {
      message: { payload_attribute_mapping: ["title reads every element of an array, so its type is array"] },
    });
    await expectJson(await bad({ title: { path: ["n"], type: "number" } }), 400, {
      message: { payload_attribute_mapping: ["title cannot take a value of type number"] },
    });
    // The receiver notes the format it read the alert in; nothing else changed.
    await expectJson(await request.get(`${path}/${integration.id}`, { headers }), 200, { ...integration, last_payload_format: "generic" });
  });

  test("payload_fields lists the fields of a sample a mapping can use", async ({ request }) => {
    const team = await createTeam(request);
    const path = `/api/v4/projects/${team.project.id}/alert_management/payload_fields`;
    const payloadExample = JSON.stringify({
      alert: { name: "Disk full", level: "high", count: 3, ok: false },
      targets: [{ host: "db-1" }, "db-2"],
      when: "2026-01-01T10:00:00Z",
      nothing: null,
    });
    await expectJson(await request.post(path, { headers: asToken(team.maintainer.token), data: { payload_example: payloadExample } }), 200, [
      { path: ["alert", "name"], label: "alert/name", type: "string" },
      { path: ["alert", "level"], label: "alert/level", type: "string" },
      { path: ["alert", "count"], label: "alert/count", type: "number" },
      { path: ["targets"], label: "targets", type: "array" },
      { path: ["targets", { each: true }, "host"], label: "targets[*]/host", type: "array" },
      { path: ["targets", 0, "host"], label: "targets[0]/host", type: "string" },
      { path: ["targets", 1], label: "targets[1]", type: "string" },
      { path: ["when"], label: "when", type: "datetime" },
    ]);
    await expectJson(await request.post(path, { headers: asToken(team.maintainer.token), data: { payload_example: "[1]" } }), 400, {
      message: { payload_example: ["must be a JSON object"] },
    });
    await expectJson(await request.post(path, { headers: asToken(team.maintainer.token), data: {} }), 400, { error: "payload_example is missing" });
  });

  test("test alerts: Developers send them through the integration; inactive → 403; heartbeats → 422; Reporters cannot", async ({ request }) => {
    const team = await createTeam(request);
    const mapping = { title: { path: ["alert", "name"], type: "string" }, hosts: { path: ["targets", 0, "host"], type: "string" } };
    const integration = await createIntegration(request, team.owner.token, team.project.id, { payload_attribute_mapping: mapping });
    const path = `${integrationsPath(team.project.id)}/${integration.id}/test_alert`;
    const payload = { alert: { name: "Disk full" }, targets: [{ host: "db-1" }] };
    await expectJson(await request.post(path, { headers: asToken(team.developer.token), data: { payload } }), 200, [{ iid: 1, title: "Disk full" }]);
    const [alert] = await listAlerts(request, team.reporter.token, team.project.id);
    expect(alert).toMatchObject({ iid: 1, title: "Disk full", hosts: ["db-1"], integration_id: integration.id });
    // An Alertmanager-shaped test alert answers as the receiver does: as Alertmanager's where no custom mapping wins.
    const unmapped = await createIntegration(request, team.owner.token, team.project.id);
    const webhook = {
      version: "4",
      groupKey: "g",
      status: "firing",
      receiver: "r",
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: "",
      alerts: [{ labels: { alertname: "From AM" }, annotations: {}, startsAt: "2026-01-01T00:00:00Z", status: "firing" }],
    };
    await expectJson(await request.post(path, { headers: asToken(team.maintainer.token), data: { payload: webhook } }), 200, [{ iid: 2, title: "New: Alert" }]);
    await expectJson(
      await request.post(`${integrationsPath(team.project.id)}/${unmapped.id}/test_alert`, { headers: asToken(team.maintainer.token), data: { payload: webhook } }),
      201,
      [{ iid: 3, title: "From AM" }],
    );

    await expectJson(await request.post(path, { headers: asToken(team.reporter.token), data: { payload } }), 403, forbidden);
    await expectJson(await request.post(path, { headers: asToken(team.developer.token), data: { payload: "text" } }), 400, {
      error: "payload is invalid",
    });
    await expectJson(await request.post(`${integrationsPath(team.project.id)}/999999/test_alert`, { headers: asToken(team.developer.token), data: { payload } }), 404, {
      message: "404 Integration Not Found",
    });
    await request.put(`${integrationsPath(team.project.id)}/${integration.id}`, { headers: asToken(team.owner.token), data: { active: false } });
    await expectJson(await request.post(path, { headers: asToken(team.developer.token), data: { payload } }), 403, {
      message: "The integration is currently inactive. Enable the integration to send the test alert.",
    });
    // A heartbeat takes pings, never alerts: its test alert is refused, and no alert is opened.
    const heartbeat = await createIntegration(request, team.owner.token, team.project.id, { type: "heartbeat", heartbeat_interval_seconds: 300, heartbeat_grace_seconds: 60 });
    await expectJson(await request.post(`${integrationsPath(team.project.id)}/${heartbeat.id}/test_alert`, { headers: asToken(team.developer.token), data: { payload } }), 422, {
      message: "A heartbeat integration takes pings, not alerts: it cannot send a test alert.",
    });
    expect((await listAlerts(request, team.reporter.token, team.project.id)).map((alert) => alert.iid).sort()).toEqual([1, 2, 3]);
  });

  test("alerts: Reporters list and read them with filters, sorts and pages; Developers change the status", async ({ request, baseURL }) => {
    const team = await createTeam(request);
    const integration = await createIntegration(request, team.owner.token, team.project.id, { name: "Zabbix" });
    const send = async (body: Record<string, unknown>) => {
      const response = await postAlert(request, receiverPath(integration), body, bearer(integration.token));
      expect(response.status(), await response.text()).toBe(200);
    };
    await send({ title: "Disk full", severity: "low", start_time: "2026-01-01T10:00:00Z", service: "db", monitoring_tool: "Zabbix", hosts: ["db-1", "db-2"], description: "sda1 at 99%", fingerprint: "testing" });
    await send({ title: "CPU hot", severity: "critical", start_time: "2026-01-02T10:00:00Z" });
    await send({ title: "Memory leak", severity: "medium", start_time: "2026-01-03T10:00:00Z", service: "web" });
    await send({ title: "Disk full", fingerprint: "testing" });
    await send({ title: "Disk full", fingerprint: "testing" });

    const reporter = asToken(team.reporter.token);
    const list = await request.get(alertsPath(team.project.id), { headers: reporter });
    expect(list.status()).toBe(200);
    expect(list.headers()).toMatchObject({ "x-total": "3", "x-page": "1", "x-per-page": "20", "x-total-pages": "1" });
    const alerts = (await list.json()) as Alert[];
    expect(alerts.map((alert) => alert.title)).toEqual(["Memory leak", "CPU hot", "Disk full"]);
    const disk = alerts[2]!;
    expect(disk).toEqual({
      id: expect.any(Number),
      iid: 1,
      project_id: team.project.id,
      integration_id: integration.id,
      title: "Disk full",
      description: "sda1 at 99%",
      severity: "low",
      status: "triggered",
      started_at: "2026-01-01T10:00:00.000Z",
      ended_at: null,
      monitoring_tool: "Zabbix",
      service: "db",
      hosts: ["db-1", "db-2"],
      environment: null,
      fingerprint: sha1("testing"),
      event_count: 3,
      payload: { title: "Disk full", severity: "low", start_time: "2026-01-01T10:00:00Z", service: "db", monitoring_tool: "Zabbix", hosts: ["db-1", "db-2"], description: "sda1 at 99%", fingerprint: "testing" },
      payload_format: "generic",
      source_links: [],
      issue_iid: null,
      assignees: [],
      silenced_by: null,
      snoozed_until: null,
      snoozed_until_resolved: false,
      details_url: `${baseURL}/${team.project.path_with_namespace}/-/alert_management/1/details`,
      created_at: isoTimestamp,
      updated_at: isoTimestamp,
    });
    await expectJson(await request.get(`${alertsPath(team.project.id)}/1`, { headers: reporter }), 200, disk);
    await expectJson(await request.get(`${alertsPath(team.project.id)}/99`, { headers: reporter }), 404, { message: "404 Alert Not Found" });

    const titles = async (query: string) => (await listAlerts(request, team.reporter.token, team.project.id, query)).map((alert) => alert.title);
    expect(await titles("?sort=started_at_asc")).toEqual(["Disk full", "CPU hot", "Memory leak"]);
    expect(await titles("?sort=severity_desc")).toEqual(["CPU hot", "Memory leak", "Disk full"]);
    expect(await titles("?sort=event_count_desc")).toEqual(["Disk full", "Memory leak", "CPU hot"]);
    expect(await titles("?search=WEB")).toEqual(["Memory leak"]);
    expect(await titles("?search=sda1")).toEqual(["Disk full"]);
    expect(await titles("?search=zabbix")).toEqual(["Disk full"]);
    expect(await titles("?search=nothing-like-it")).toEqual([]);
    await expectJson(await request.get(`${alertsPath(team.project.id)}?sort=title`, { headers: reporter }), 400, { error: "sort does not have a valid value" });
    await expectJson(await request.get(`${alertsPath(team.project.id)}?status=open`, { headers: reporter }), 400, { error: "status does not have a valid value" });

    // Paging.
    const page2 = await request.get(`${alertsPath(team.project.id)}?per_page=2&page=2`, { headers: reporter });
    expect(page2.headers()).toMatchObject({ "x-total": "3", "x-page": "2", "x-per-page": "2", "x-total-pages": "2", "x-prev-page": "1", "x-next-page": "" });
    expect(((await page2.json()) as Alert[]).map((alert) => alert.title)).toEqual(["Disk full"]);

    // Status changes: Developers, not Reporters.
    const developer = asToken(team.developer.token);
    await expectJson(await request.put(`${alertsPath(team.project.id)}/2`, { headers: reporter, data: { status: "acknowledged" } }), 403, forbidden);
    const acknowledged = await request.put(`${alertsPath(team.project.id)}/2`, { headers: developer, data: { status: "acknowledged" } });
    expect(acknowledged.status()).toBe(200);
    expect(await acknowledged.json()).toMatchObject({ iid: 2, status: "acknowledged", ended_at: null });
    const resolved = await request.put(`${alertsPath(team.project.id)}/3`, { headers: developer, data: { status: "resolved" } });
    expect(await resolved.json()).toMatchObject({ iid: 3, status: "resolved", ended_at: isoTimestamp });
    await expectJson(await request.put(`${alertsPath(team.project.id)}/3`, { headers: developer, data: { status: "closed" } }), 400, {
      error: "status does not have a valid value",
    });

    expect(await titles("?status=triggered")).toEqual(["Disk full"]);
    expect(await titles("?status=acknowledged")).toEqual(["CPU hot"]);
    expect(await titles("?status=resolved")).toEqual(["Memory leak"]);
    expect(await titles("?status=triggered,acknowledged")).toEqual(["CPU hot", "Disk full"]);
    expect(await titles("?status[]=triggered&status[]=resolved")).toEqual(["Memory leak", "Disk full"]);

    // Reopening the resolved alert is fine while nothing else has its fingerprint.
    const reopened = await request.put(`${alertsPath(team.project.id)}/3`, { headers: developer, data: { status: "triggered" } });
    expect(await reopened.json()).toMatchObject({ status: "triggered", ended_at: null });

    // Guests and outsiders do not see alerts.
    await expectJson(await request.get(alertsPath(team.project.id), { headers: asToken(team.guest.token) }), 403, forbidden);
    await expectJson(await request.get(alertsPath(team.project.id), { headers: asToken(team.outsider.token) }), 404, { message: "404 Project Not Found" });
  });

  test("a resolved alert cannot be reopened while another open alert has its fingerprint", async ({ request }) => {
    const team = await createTeam(request);
    const integration = await createIntegration(request, team.owner.token, team.project.id);
    const auth = bearer(integration.token);
    await postAlert(request, receiverPath(integration), { title: "Twin", fingerprint: "twin" }, auth);
    await postAlert(request, receiverPath(integration), { fingerprint: "twin", end_time: "2026-01-01T00:00:00Z" }, auth);
    await expectJson(await postAlert(request, receiverPath(integration), { title: "Twin", fingerprint: "twin" }, auth), 200, [{ iid: 2, title: "Twin" }]);
    await expectJson(await request.put(`${alertsPath(team.project.id)}/1`, { headers: asToken(team.developer.token), data: { status: "triggered" } }), 409, {
      message: "An alert with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.",
    });
  });

  test("settings: create_incident opens an incident issue for new alerts; a recovery closes it (auto_close_incident)", async ({ request }) => {
    const team = await createTeam(request);
    const settingsPath = `/api/v4/projects/${team.project.id}/alert_management/settings`;
    const maintainer = asToken(team.maintainer.token);
    await expectJson(await request.get(settingsPath, { headers: maintainer }), 200, { create_incident: false, auto_close_incident: true, send_email: false });
    await expectJson(await request.put(settingsPath, { headers: maintainer, data: { create_incident: true } }), 200, {
      create_incident: true,
      auto_close_incident: true,
      send_email: false,
    });
    await expectJson(await request.get(settingsPath, { headers: maintainer }), 200, { create_incident: true, auto_close_incident: true, send_email: false });
    await expectJson(await request.put(settingsPath, { headers: maintainer, data: { create_incident: "maybe" } }), 400, {
      error: "create_incident is invalid",
    });

    const integration = await createIntegration(request, team.owner.token, team.project.id);
    const auth = bearer(integration.token);
    await expectJson(await postAlert(request, receiverPath(integration), { title: "Database down", severity: "high", fingerprint: "db" }, auth), 200, [
      { iid: 1, title: "Database down" },
    ]);
    await expectJson(await postAlert(request, receiverPath(integration), {}, auth), 200, [{ iid: 2, title: "New: Alert" }]);
    const [first] = await listAlerts(request, team.reporter.token, team.project.id, "?sort=started_at_asc");
    expect(first).toMatchObject({ iid: 1, issue_iid: 1 });

    const issues = await request.get(`/api/v4/projects/${team.project.id}/issues/1`, { headers: asToken(team.reporter.token) });
    expect(issues.status()).toBe(200);
    expect(await issues.json()).toMatchObject({
      iid: 1,
      title: "Database down",
      state: "opened",
      issue_type: "incident",
      author: { username: "alert-bot" },
      description: expect.stringContaining("**Severity:** high"),
    });
    const second = await request.get(`/api/v4/projects/${team.project.id}/issues/2`, { headers: asToken(team.reporter.token) });
    expect(await second.json()).toMatchObject({ iid: 2, title: "New: Incident 2", state: "opened" });
    const listed = await request.get(`/api/v4/projects/${team.project.id}/issues`, { headers: asToken(team.reporter.token) });
    expect(((await listed.json()) as { iid: number }[]).map((issue) => issue.iid).sort()).toEqual([1, 2]);

    // The recovery resolves the alert and closes its incident.
    await expectJson(await postAlert(request, receiverPath(integration), { fingerprint: "db", end_time: "2026-01-01T00:00:00Z" }, auth), 200, [
      { iid: 1, title: "Database down" },
    ]);
    const closed = await request.get(`/api/v4/projects/${team.project.id}/issues/1`, { headers: asToken(team.reporter.token) });
    expect(await closed.json()).toMatchObject({ state: "closed", closed_at: isoTimestamp });
    const timeline = await request.get(`/api/v4/projects/${team.project.id}/issues/1/notes?activity_filter=only_activity`, { headers: asToken(team.reporter.token) });
    expect(await timeline.json()).toMatchObject([{ body: "closed", system: true, author: { username: "alert-bot" } }]);

    // With auto-close off, the next one stays open.
    await request.put(settingsPath, { headers: maintainer, data: { auto_close_incident: false } });
    await postAlert(request, receiverPath(integration), { title: "Cache down", fingerprint: "cache" }, auth);
    await postAlert(request, receiverPath(integration), { fingerprint: "cache", end_time: "2026-01-01T00:00:00Z" }, auth);
    const cache = (await listAlerts(request, team.reporter.token, team.project.id)).find((alert) => alert.title === "Cache down");
    expect(cache).toMatchObject({ status: "resolved", issue_iid: 3 });
    const stillOpen = await request.get(`/api/v4/projects/${team.project.id}/issues/3`, { headers: asToken(team.reporter.token) });
    expect(await stillOpen.json()).toMatchObject({ state: "opened" });

    // Without create_incident, no incident.
    await request.put(settingsPath, { headers: maintainer, data: { create_incident: false } });
    await postAlert(request, receiverPath(integration), { title: "Quiet" }, auth);
    const quiet = (await listAlerts(request, team.reporter.token, team.project.id)).find((alert) => alert.title === "Quiet");
    expect(quiet).toMatchObject({ issue_iid: null });
  });
});
