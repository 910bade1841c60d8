import { expect, test, type APIRequestContext } from "@playwright/test";
import { asToken, createProject, createUser, expectJson } from "../support/api";
import { bearer, createIntegration, integrationsPath, listAlerts, postAlert, receiverPath } from "../support/alerts";

// No payload can hold the server: GitLab's limits on a payload's parsed size and depth, and every step over an
// accepted payload in time proportional to it.

/** 90 nested objects of 1,289 four-character keys each: 116,010 keys in 1,044,902 bytes of JSON. */
function wideAndDeep(): string {
  let payload: Record<string, unknown> = {};
  for (let level = 0; level < 90; level++) {
    const object: Record<string, unknown> = { next: payload };
    for (let index = 0; index < 1289; index++) object[index.toString(36).padStart(4, "0")] = 0;
    payload = object;
  }
  return JSON.stringify(payload);
}

/**
 * The largest payload GitLab's limits let through, built to be costly: 100 levels, a chain of 99 keys of 5,000
 * characters above 4,000 values, about 790 KB of parsed size. Flattened into dotted paths, as automatic fingerprints
 * name values, it would repeat the 495,000 characters of the chain for each value.
 */
function deepestAccepted(): Record<string, unknown> {
  let payload: Record<string, unknown> = Object.fromEntries(Array.from({ length: 4000 }, (_, index) => [`v${index}`, index]));
  for (let level = 0; level < 99; level++) payload = { [`${level}`.padEnd(5000, "k")]: payload };
  return payload;
}

/** Posts while polling `/-/liveness`: the answer, how long it took, and the slowest liveness answer meanwhile. */
async function postWatchingLiveness(request: APIRequestContext, path: string, body: unknown, headers: Record<string, string>) {
  let posting = true;
  let slowestLiveness = 0;
  let livenessAnswers = 0;
  const watch = (async () => {
    while (posting) {
      const started = Date.now();
      expect((await request.get("/-/liveness")).status()).toBe(200);
      slowestLiveness = Math.max(slowestLiveness, Date.now() - started);
      livenessAnswers++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = Date.now();
  const response = await postAlert(request, path, body, headers);
  const elapsed = Date.now() - started;
  posting = false;
  await watch;
  return { response, elapsed, slowestLiveness, livenessAnswers };
}

test.describe("alert payload limits", () => {
  test("1 MB of 116,000 keys on 90 levels → GitLab's bare 400 at once, before the key, while the server keeps answering", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id);
    const prometheus = await createIntegration(request, owner.token, project.id, { type: "prometheus", name: "Prometheus" });
    const body = wideAndDeep();
    expect(Buffer.byteLength(body)).toBe(1_044_902);

    for (const [path, headers] of [
      [receiverPath(integration), bearer(integration.token)],
      [receiverPath(integration), {}],
      [`/${project.path_with_namespace}/prometheus/alerts/notify.json`, bearer(prometheus.token)],
    ] as const) {
      const { response, elapsed, slowestLiveness, livenessAnswers } = await postWatchingLiveness(request, path, body, headers);
      expect(response.status()).toBe(400);
      expect(response.headers()["content-type"]).toBe("application/json");
      expect(await response.text()).toBe("");
      expect(elapsed).toBeLessThan(2000);
      expect(livenessAnswers).toBeGreaterThan(0);
      expect(slowestLiveness).toBeLessThan(1000);
    }
    // 101 levels are refused the same way; nothing was recorded.
    const tooDeep = `${'{"a":'.repeat(101)}1${"}".repeat(101)}`;
    const refused = await postAlert(request, receiverPath(integration), tooDeep, bearer(integration.token));
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toBe("");
    expect(await listAlerts(request, owner.token, project.id)).toEqual([]);
  });

  test("a payload at the maximum depth and size is recorded, and grouped on repeat, in bounded time", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id);
    const payload = deepestAccepted();
    for (const expectedEvents of [1, 2]) {
      const { response, elapsed, slowestLiveness } = await postWatchingLiveness(request, receiverPath(integration), payload, bearer(integration.token));
      await expectJson(response, 200, [{ iid: 1, title: "New: Alert" }]);
      expect(elapsed).toBeLessThan(3000);
      expect(slowestLiveness).toBeLessThan(1000);
      const [alert] = await listAlerts(request, owner.token, project.id);
      expect(alert).toMatchObject({ iid: 1, event_count: expectedEvents, status: "triggered" });
    }
    // The alert's page shows it, in bounded time too.
    const details = await request.get(`/api/v4/projects/${project.id}/alert_management/alerts/1`, { headers: asToken(owner.token) });
    expect(details.status()).toBe(200);
    expect(((await details.json()) as { payload: unknown }).payload).toEqual(payload);
  });

  test("payload_fields on a 762 KB sample → at most 1,000 fields in at most 256 KiB, its keys and [*] paths first", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    // Within GitLab's limits (numbers cost Ruby no memory), yet one field per number when every element is listed.
    const sample = JSON.stringify({
      receiver: "gitlab",
      series: Array.from({ length: 100 }, (_, index) => ({ name: `cpu-${index}`, points: Array.from({ length: 690 }, (_, point) => 1767261600 + point) })),
      externalURL: "http://alertmanager.example.com",
    });
    expect(sample.length).toBe(761_970);
    const response = await request.post(`/api/v4/projects/${project.id}/alert_management/payload_fields`, {
      headers: asToken(owner.token),
      data: { payload_example: sample },
    });
    expect(response.status()).toBe(200);
    const text = await response.text();
    expect(text.length).toBeLessThanOrEqual(256 * 1024);
    const fields = JSON.parse(text) as { path: unknown[]; label: string; type: string }[];
    expect(fields).toHaveLength(1000);
    // The keys and [*] paths, then each series by index, then the points of the first series and part of the second's.
    expect(fields.slice(0, 7)).toEqual([
      { path: ["receiver"], label: "receiver", type: "string" },
      { path: ["series"], label: "series", type: "array" },
      { path: ["series", { each: true }, "name"], label: "series[*]/name", type: "array" },
      { path: ["series", { each: true }, "points"], label: "series[*]/points", type: "array" },
      { path: ["series", 0, "name"], label: "series[0]/name", type: "string" },
      { path: ["series", 0, "points"], label: "series[0]/points", type: "array" },
      { path: ["series", 0, "points", 0], label: "series[0]/points[0]", type: "number" },
    ]);
    expect(fields.slice(695, 700).map((field) => field.label)).toEqual([
      "series[0]/points[689]",
      "series[1]/name",
      "series[1]/points",
      "series[1]/points[0]",
      "series[1]/points[1]",
    ]);
    expect(fields.filter((field) => field.label.startsWith("series[1]/points[")).length).toBe(1000 - 5 - 200 - 690);
    expect(fields.slice(-3)).toEqual([
      { path: ["series", 99, "name"], label: "series[99]/name", type: "string" },
      { path: ["series", 99, "points"], label: "series[99]/points", type: "array" },
      { path: ["externalURL"], label: "externalURL", type: "string" },
    ]);
  });

  test("a sample or test alert over the limits is refused as invalid input", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id);
    const manyKeys = Object.fromEntries(Array.from({ length: 30_000 }, (_, index) => [index.toString(36), 0]));
    await expectJson(
      await request.post(`/api/v4/projects/${project.id}/alert_management/payload_fields`, {
        headers: asToken(owner.token),
        data: { payload_example: JSON.stringify(manyKeys) },
      }),
      400,
      { message: { payload_example: ["is too big"] } },
    );
    await expectJson(
      await request.post(`${integrationsPath(project.id)}/${integration.id}/test_alert`, { headers: asToken(owner.token), data: { payload: manyKeys } }),
      400,
      { message: { payload: ["is too big"] } },
    );
    await expectJson(
      await request.post(`${integrationsPath(project.id)}/${integration.id}/test_alert`, {
        headers: asToken(owner.token),
        data: { payload: JSON.parse(`${'{"a":'.repeat(101)}1${"}".repeat(101)}`) as unknown },
      }),
      400,
      { message: { payload: ["is nested too deeply"] } },
    );
    expect(await listAlerts(request, owner.token, project.id)).toEqual([]);
  });

  test("the alert list's search is at most 255 characters, as on the list page", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    expect(await listAlerts(request, owner.token, project.id, `?search=${"x".repeat(255)}`)).toEqual([]);
    await expectJson(
      await request.get(`/api/v4/projects/${project.id}/alert_management/alerts?search=${"x".repeat(256)}`, { headers: asToken(owner.token) }),
      400,
      { error: "search is invalid" },
    );
  });

  test("a mapping through constructor, toString or __proto__ is refused when saved; a sample with such a key allows it", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const payloadExample = JSON.stringify({ alert: { name: "Disk full" } });
    for (const step of ["constructor", "toString", "__proto__"]) {
      const mapping = { title: { path: ["alert", step], type: "string" } };
      const expected = { message: { payload_attribute_mapping: [`title reads "${step}", which is not a key of the sample payload`] } };
      await expectJson(
        await request.post(integrationsPath(project.id), {
          headers: asToken(owner.token),
          data: { name: "Mapped", type: "http", active: true, payload_example: payloadExample, payload_attribute_mapping: mapping },
        }),
        400,
        expected,
      );
      const integration = await createIntegration(request, owner.token, project.id, { payload_example: payloadExample });
      await expectJson(
        await request.put(`${integrationsPath(project.id)}/${integration.id}`, { headers: asToken(owner.token), data: { payload_attribute_mapping: mapping } }),
        400,
        expected,
      );
    }
    // Where the sample has the key itself, the path is a path like any other, and alerts read it.
    const mapped = await createIntegration(request, owner.token, project.id, {
      payload_example: '{"constructor": "Disk full"}',
      payload_attribute_mapping: { title: { path: ["constructor"], type: "string" } },
    });
    await expectJson(await postAlert(request, receiverPath(mapped), '{"constructor": "CPU hot"}', bearer(mapped.token)), 200, [{ iid: 1, title: "CPU hot" }]);
    await expectJson(await postAlert(request, receiverPath(mapped), { other: 1 }, bearer(mapped.token)), 200, [{ iid: 2, title: "New: Alert" }]);
  });
});
