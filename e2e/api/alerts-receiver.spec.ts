import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser, expectJson, uniqueName } from "../support/api";
import {
  alertmanagerWebhook,
  basicWithKey,
  bearer,
  createIntegration,
  listAlerts,
  postAlert,
  receiverPath,
  type Integration,
} from "../support/alerts";

// The receiver's answers (the README's Alerts section), case by case, against the running server.

const unauthorized = { message: "401 Unauthorized" };
const forbidden = { message: "403 Forbidden" };

async function projectWithIntegration(request: Parameters<typeof createUser>[0], data: Record<string, unknown> = {}) {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const integration = await createIntegration(request, owner.token, project.id, data);
  return { owner, project, integration };
}

/** A JSON object nested `depth` levels deep (`{"a":{"a":…{"a":1}}}`). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{"a":1}${"}".repeat(depth - 1)}`;
}

function identifierPath(projectPath: string, integration: Integration, name = "anything", suffix = ".json"): string {
  return `/${projectPath}/alerts/notify/${name}/${integration.endpoint_identifier}${suffix}`;
}

test.describe("alert receiver", () => {
  test("a generic body → 200 with the created alert; Bearer and Basic (key as password) both work", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const path = receiverPath(integration);
    expect(integration.url).toMatch(new RegExp(`/${project.path_with_namespace}/alerts/notify/[a-z0-9-]+/${integration.endpoint_identifier}\\.json$`));

    await expectJson(await postAlert(request, path, { title: "Disk full", severity: "HIGH" }, bearer(integration.token)), 200, [
      { iid: 1, title: "Disk full" },
    ]);
    await expectJson(await postAlert(request, path, { title: "CPU hot" }, basicWithKey(integration.token)), 200, [{ iid: 2, title: "CPU hot" }]);
    await expectJson(await postAlert(request, path, { title: "Memory" }, basicWithKey(integration.token, "whoever")), 200, [
      { iid: 3, title: "Memory" },
    ]);
    // The default title; an unknown severity is critical.
    await expectJson(await postAlert(request, path, { severity: "catastrophic" }, bearer(integration.token)), 200, [{ iid: 4, title: "New: Alert" }]);

    const alerts = await listAlerts(request, owner.token, project.id, "?sort=started_at_asc");
    expect(alerts.map((alert) => [alert.iid, alert.title, alert.severity, alert.status])).toEqual([
      [1, "Disk full", "high", "triggered"],
      [2, "CPU hot", "critical", "triggered"],
      [3, "Memory", "critical", "triggered"],
      [4, "New: Alert", "critical", "triggered"],
    ]);
  });

  test("an Alertmanager webhook body → 201, one alert per element of alerts", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    await expectJson(await postAlert(request, receiverPath(integration), alertmanagerWebhook("firing", ["A", "B"]), bearer(integration.token)), 201, [
      { iid: 1, title: "A" },
      { iid: 2, title: "B" },
    ]);
    const alerts = await listAlerts(request, owner.token, project.id, "?sort=started_at_asc");
    expect(alerts.map((alert) => [alert.title, alert.severity, alert.monitoring_tool])).toEqual([
      ["A", "low", "Prometheus"],
      ["B", "low", "Prometheus"],
    ]);
  });

  test("a body over 1 MiB → 413 before anything else, even without a key or a project", async ({ request }) => {
    const { project, integration } = await projectWithIntegration(request);
    const huge = JSON.stringify({ title: "big", padding: "x".repeat(1024 * 1024) });
    const expected = { message: "The payload is larger than 1048576 bytes." };
    await expectJson(await postAlert(request, receiverPath(integration), huge), 413, expected);
    await expectJson(await postAlert(request, `/${project.path_with_namespace}/alerts/notify/x/doesnotexist.json`, huge), 413, expected);
    await expectJson(await postAlert(request, "/nobody-here/no-project/alerts/notify.json", huge), 413, expected);
    // Exactly 1 MiB is still read (white space, so the parsed payload is within GitLab's limits too).
    const fitting = JSON.stringify({ title: "fits" });
    const exact = `${fitting.slice(0, -1)}${" ".repeat(1024 * 1024 - fitting.length)}}`;
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    await expectJson(await postAlert(request, receiverPath(integration), exact, bearer(integration.token)), 200, [{ iid: 1, title: "fits" }]);
  });

  test("not JSON, JSON that is not an object, or nesting deeper than 100 → 400 (before the key is checked)", async ({ request }) => {
    const { integration } = await projectWithIntegration(request);
    const path = receiverPath(integration);
    for (const headers of [bearer(integration.token), {}]) {
      await expectJson(await postAlert(request, path, "{not json", headers), 400, { message: "The payload is not valid JSON." });
      await expectJson(await postAlert(request, path, "", headers), 400, { message: "The payload is not valid JSON." });
      await expectJson(await postAlert(request, path, "[]", headers), 400, { message: "The payload must be a JSON object." });
      await expectJson(await postAlert(request, path, '[{"title":"x"}]', headers), 400, { message: "The payload must be a JSON object." });
      await expectJson(await postAlert(request, path, '"text"', headers), 400, { message: "The payload must be a JSON object." });
      await expectJson(await postAlert(request, path, "null", headers), 400, { message: "The payload must be a JSON object." });
      // Past GitLab's limits (100 levels, 1 MB parsed) GitLab answers with a bare 400.
      const tooDeep = await postAlert(request, path, nested(101), headers);
      expect(tooDeep.status()).toBe(400);
      expect(await tooDeep.text()).toBe("");
    }
    // 100 levels are fine.
    await expectJson(await postAlert(request, path, nested(100), bearer(integration.token)), 200, [{ iid: 1, title: "New: Alert" }]);
  });

  test("a missing or wrong key → 401", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const path = receiverPath(integration);
    const body = { title: "Nope" };
    await expectJson(await postAlert(request, path, body), 401, unauthorized);
    await expectJson(await postAlert(request, path, body, bearer("0".repeat(32))), 401, unauthorized);
    await expectJson(await postAlert(request, path, body, bearer(`${integration.token}x`)), 401, unauthorized);
    await expectJson(await postAlert(request, path, body, basicWithKey("wrong")), 401, unauthorized);
    // The key as the Basic user name is not the key.
    await expectJson(await postAlert(request, path, body, { Authorization: `Basic ${Buffer.from(`${integration.token}:`).toString("base64")}` }), 401, unauthorized);
    await expectJson(await postAlert(request, path, body, { Authorization: `Token ${integration.token}` }), 401, unauthorized);
    await expectJson(await postAlert(request, path, body, { Authorization: integration.token }), 401, unauthorized);
    // An Alertmanager body with a wrong key is 401 as well.
    await expectJson(await postAlert(request, path, alertmanagerWebhook("firing", ["A"]), bearer("wrong")), 401, unauthorized);
    expect(await listAlerts(request, owner.token, project.id)).toEqual([]);
  });

  test("an unknown project or identifier, or an inactive integration → 403; an Alertmanager body there → 401", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const inactive = await createIntegration(request, owner.token, project.id, { active: false });
    const generic = { title: "Nope" };
    const webhook = alertmanagerWebhook("firing", ["A"]);
    const targets = [
      // Right key, wrong place.
      [`/${project.path_with_namespace}/alerts/notify/x/0123456789abcdef.json`, integration.token],
      [`/nobody-${integration.endpoint_identifier}/nothing/alerts/notify/x/${integration.endpoint_identifier}.json`, integration.token],
      // No integration with the identifier `legacy`, no Prometheus integration.
      [`/${project.path_with_namespace}/alerts/notify.json`, integration.token],
      [`/${project.path_with_namespace}/prometheus/alerts/notify.json`, integration.token],
      // The inactive integration, with its own key or none.
      [receiverPath(inactive), inactive.token],
      [receiverPath(inactive), ""],
    ] as const;
    for (const [path, key] of targets) {
      const headers = key ? bearer(key) : {};
      await expectJson(await postAlert(request, path, generic, headers), 403, forbidden);
      await expectJson(await postAlert(request, path, webhook, headers), 401, unauthorized);
    }
    // Activating the integration opens it.
    const activated = await request.put(`/api/v4/projects/${project.id}/alert_management/integrations/${inactive.id}`, {
      headers: { "PRIVATE-TOKEN": owner.token },
      data: { active: true },
    });
    expect(activated.status()).toBe(200);
    await expectJson(await postAlert(request, receiverPath(inactive), generic, bearer(inactive.token)), 200, [{ iid: 1, title: "Nope" }]);
  });

  test("a recovery with nothing open to resolve → 200 [] and nothing is created; with a match it resolves", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const path = receiverPath(integration);
    const auth = bearer(integration.token);
    await expectJson(await postAlert(request, path, { title: "Gone", end_time: "2026-01-01T10:00:00Z" }, auth), 200, []);
    await expectJson(await postAlert(request, path, { fingerprint: "fp-1", end_time: "2026-01-01T10:00:00Z" }, auth), 200, []);
    expect(await listAlerts(request, owner.token, project.id)).toEqual([]);

    await expectJson(await postAlert(request, path, { title: "Flapping", fingerprint: "fp-1" }, auth), 200, [{ iid: 1, title: "Flapping" }]);
    await expectJson(await postAlert(request, path, { title: "Flapping", fingerprint: "fp-1" }, auth), 200, [{ iid: 1, title: "Flapping" }]);
    // Epoch milliseconds (13 digits) are an end time too.
    await expectJson(await postAlert(request, path, { fingerprint: "fp-1", end_time: 1767261600000 }, auth), 200, [{ iid: 1, title: "Flapping" }]);
    const [resolved] = await listAlerts(request, owner.token, project.id);
    expect(resolved).toMatchObject({ iid: 1, status: "resolved", event_count: 2, ended_at: "2026-01-01T10:00:00.000Z" });
    // Once resolved, the same recovery finds nothing.
    await expectJson(await postAlert(request, path, { fingerprint: "fp-1", end_time: "2026-01-01T11:00:00Z" }, auth), 200, []);
  });

  test("rate limit per integration → 429 with Retry-After once exceeded; other integrations are not affected", async ({ request }) => {
    const { project, owner, integration } = await projectWithIntegration(request, { rate_limit_per_minute: 2 });
    const other = await createIntegration(request, owner.token, project.id);
    // The limit counts per wall-clock minute: keep the three requests inside one.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    if (secondsLeft < 5) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 200));
    const path = receiverPath(integration);
    const auth = bearer(integration.token);
    expect((await postAlert(request, path, { title: "one" }, auth)).status()).toBe(200);
    expect((await postAlert(request, path, { title: "two" }, auth)).status()).toBe(200);
    const limited = await postAlert(request, path, { title: "three" }, auth);
    await expectJson(limited, 429, { message: "This endpoint has been requested too many times. Try again later." });
    const retryAfter = Number(limited.headers()["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await postAlert(request, receiverPath(other), { title: "elsewhere" }, bearer(other.token))).status()).toBe(200);
    // Bad keys do not get to spend the budget; they are refused first.
    await expectJson(await postAlert(request, path, { title: "four" }, bearer("wrong")), 401, unauthorized);
  });

  test("the .json suffix is optional and any name segment is accepted; the Prometheus URL takes both body shapes", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const auth = bearer(integration.token);
    const projectPath = project.path_with_namespace;
    await expectJson(await postAlert(request, identifierPath(projectPath, integration, "whatever", ""), { title: "a" }, auth), 200, [{ iid: 1, title: "a" }]);
    await expectJson(await postAlert(request, identifierPath(projectPath, integration, "http-endpoint"), { title: "b" }, auth), 200, [{ iid: 2, title: "b" }]);
    await expectJson(await postAlert(request, identifierPath(projectPath, integration, "Some-Name-42", ""), { title: "c" }, auth), 200, [{ iid: 3, title: "c" }]);
    // Case-insensitive project path, as project URLs are.
    await expectJson(await postAlert(request, identifierPath(projectPath.toUpperCase(), integration), { title: "d" }, auth), 200, [{ iid: 4, title: "d" }]);

    const prometheus = await createIntegration(request, owner.token, project.id, { type: "prometheus", name: "Prometheus" });
    const promAuth = bearer(prometheus.token);
    await expectJson(await postAlert(request, `/${projectPath}/prometheus/alerts/notify.json`, alertmanagerWebhook("firing", ["P"]), promAuth), 201, [
      { iid: 5, title: "P" },
    ]);
    await expectJson(await postAlert(request, `/${projectPath}/prometheus/alerts/notify`, { title: "generic via prometheus" }, promAuth), 200, [
      { iid: 6, title: "generic via prometheus" },
    ]);
    // Each integration's own key only.
    await expectJson(await postAlert(request, `/${projectPath}/prometheus/alerts/notify.json`, { title: "x" }, auth), 401, unauthorized);
  });
});

test("a project in a subgroup receives alerts at its nested receiver URL", async ({ request }) => {
  const owner = await createUser(request);
  const group = await request.post("/api/v4/groups", { headers: asToken(owner.token), data: { name: "Ops", path: uniqueName("ops").toLowerCase() } });
  expect(group.status()).toBe(201);
  const { id: groupId, full_path: groupPath } = (await group.json()) as { id: number; full_path: string };
  const subgroup = await request.post("/api/v4/groups", { headers: asToken(owner.token), data: { name: "Edge", path: "edge", parent_id: groupId } });
  expect(subgroup.status()).toBe(201);
  const created = await request.post("/api/v4/projects", {
    headers: asToken(owner.token),
    data: { name: "Gateway", namespace_id: ((await subgroup.json()) as { id: number }).id },
  });
  expect(created.status()).toBe(201);
  const project = (await created.json()) as { id: number };
  const integration = await createIntegration(request, owner.token, project.id, { name: "edge-monitor" });
  expect(receiverPath(integration)).toBe(`/${groupPath}/edge/gateway/alerts/notify/edge-monitor/${integration.endpoint_identifier}.json`);

  const fired = await postAlert(request, receiverPath(integration), { title: "Gateway 5xx", fingerprint: "gw" }, bearer(integration.token));
  expect(fired.status(), await fired.text()).toBe(200);
  expect(await fired.json()).toEqual([{ iid: 1, title: "Gateway 5xx" }]);
  const refused = await postAlert(request, receiverPath(integration), { title: "Gateway 5xx" }, bearer("not-the-key"));
  expect(refused.status()).toBe(401);
  expect((await listAlerts(request, owner.token, project.id)).map((alert) => [alert.iid, alert.title, alert.event_count])).toEqual([[1, "Gateway 5xx", 1]]);
});
