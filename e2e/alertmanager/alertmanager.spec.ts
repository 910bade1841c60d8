import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createProject, createUser } from "../support/api";
import { createIntegration, listAlerts, type Alert } from "../support/alerts";

/**
 * A real Prometheus Alertmanager (Debian's `prometheus-alertmanager`, installed by `.ci/run`) delivers a firing alert
 * and then its resolution to the project's Prometheus receiver URL, as GitLab's docs tell operators to set it up.
 */
const alertmanagerPath = process.env.ALERTMANAGER_PATH ?? "/usr/bin/prometheus-alertmanager";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Alertmanager's configuration with one receiver, sent everything at once (JSON is YAML: every string quoted safely). */
function alertmanagerConfig(receiver: Record<string, unknown>): string {
  return JSON.stringify(
    {
      route: { receiver: "gitlab-compatible", group_by: ["alertname"], group_wait: "1s", group_interval: "1s", repeat_interval: "1h" },
      receivers: [{ name: "gitlab-compatible", ...receiver }],
    },
    null,
    2,
  );
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test.describe("Prometheus Alertmanager", () => {
  test.skip(
    !existsSync(alertmanagerPath),
    `needs Debian's Alertmanager at ${alertmanagerPath}: apt-get install -y prometheus-alertmanager (or set ALERTMANAGER_PATH)`,
  );

  let alertmanager: ChildProcess | undefined;
  let workDir: string | undefined;
  let output = "";

  test.afterEach(async () => {
    if (alertmanager && alertmanager.exitCode === null) {
      const exited = new Promise((resolve) => alertmanager!.once("exit", resolve));
      alertmanager.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (alertmanager.exitCode === null) alertmanager.kill("SIGKILL");
    }
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** Starts Alertmanager with `receiver`; answers its URL. */
  async function startAlertmanager(receiver: Record<string, unknown>): Promise<string> {
    workDir = await mkdtemp(path.join(tmpdir(), "alertmanager-e2e-"));
    const configFile = path.join(workDir, "alertmanager.yml");
    await writeFile(configFile, alertmanagerConfig(receiver));
    const port = await freePort();
    const alertmanagerUrl = `http://127.0.0.1:${port}`;
    alertmanager = spawn(
      alertmanagerPath,
      [
        `--config.file=${configFile}`,
        `--storage.path=${path.join(workDir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        // What its Opsgenie notifier sends as the alert's source.
        `--web.external-url=${alertmanagerUrl}`,
        "--cluster.listen-address=",
        "--log.level=debug",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    alertmanager.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    alertmanager.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await withOutput(
      waitFor("Alertmanager to be ready", 20_000, async () => {
        const ready = await fetch(`${alertmanagerUrl}/-/ready`);
        return ready.ok ? true : undefined;
      }),
    );
    return alertmanagerUrl;
  }

  /** Alertmanager's log with a failure, which says why a notification did not arrive. */
  function withOutput<T>(waiting: Promise<T>): Promise<T> {
    return waiting.catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
  }

  /** Posts one alert to Alertmanager, firing until `endsAt` (resolved when that is past). */
  async function postToAlertmanager(alertmanagerUrl: string, alert: { alertname: string; startsAt: string; endsAt: Date }) {
    const response = await fetch(`${alertmanagerUrl}/api/v2/alerts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([
        {
          labels: { alertname: alert.alertname, severity: "page", instance: "db-1" },
          annotations: { summary: "Disk full on db-1", description: "sda1 at 99%" },
          startsAt: alert.startsAt,
          endsAt: alert.endsAt.toISOString(),
          generatorURL: "http://prometheus.invalid/graph?g0.expr=disk_used%3E0.99",
        },
      ]),
    });
    expect(response.status, await response.text()).toBe(200);
  }

  test("delivers a firing alert that appears, then its resolution that resolves it", async ({ request, baseURL }) => {
    test.setTimeout(90_000);
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id, { type: "prometheus", name: "Prometheus" });
    const alertmanagerUrl = await startAlertmanager({
      webhook_configs: [
        {
          url: `${baseURL}/${project.path_with_namespace}/prometheus/alerts/notify.json`,
          send_resolved: true,
          http_config: { authorization: { type: "Bearer", credentials: integration.token } },
        },
      ],
    });

    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alertname = `DiskFull_${Date.now()}`;
    const findOurs = async (status: string): Promise<Alert | undefined> => {
      const alerts = await listAlerts(request, owner.token, project.id);
      return alerts.find((alert) => alert.title === "Disk full on db-1" && alert.status === status);
    };

    await postToAlertmanager(alertmanagerUrl, { alertname, startsAt, endsAt: new Date(Date.now() + 60 * 60_000) });
    const firing = await withOutput(waitFor("the firing alert to arrive", 30_000, () => findOurs("triggered")));
    expect(firing).toMatchObject({
      iid: 1,
      status: "triggered",
      severity: "high",
      monitoring_tool: "Prometheus",
      description: "sda1 at 99%",
      started_at: startsAt,
      ended_at: null,
    });

    await postToAlertmanager(alertmanagerUrl, { alertname, startsAt, endsAt: new Date(Date.now() - 1_000) });
    const resolved = await withOutput(waitFor("the resolution to arrive", 30_000, () => findOurs("resolved")));
    expect(resolved).toMatchObject({ iid: 1, status: "resolved", ended_at: expect.any(String) });
    // One alert, resolved in place: the resolution did not open another.
    expect(await listAlerts(request, owner.token, project.id)).toHaveLength(1);
  });

  test("its Opsgenie notifier, pointed at an HTTP integration's URL, opens the alert and then closes it by alias", async ({ request }) => {
    test.setTimeout(90_000);
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id, { type: "http", name: "From Opsgenie's notifier" });
    // Alertmanager appends `v2/alerts` to its `api_url`, as to Opsgenie's.
    const alertmanagerUrl = await startAlertmanager({
      opsgenie_configs: [
        {
          api_key: integration.token,
          api_url: `${integration.url.replace(/\.json$/, "")}/`,
          message: "{{ .CommonAnnotations.summary }}",
          description: "{{ .CommonAnnotations.description }}",
          priority: "P2",
          send_resolved: true,
        },
      ],
    });

    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alertname = `DiskFull_${Date.now()}`;
    const ours = async (status: string) => (await listAlerts(request, owner.token, project.id)).find((alert) => alert.status === status);
    await postToAlertmanager(alertmanagerUrl, { alertname, startsAt, endsAt: new Date(Date.now() + 60 * 60_000) });
    const firing = await withOutput(waitFor("the Opsgenie alert to arrive", 30_000, () => ours("triggered")));
    expect(firing).toMatchObject({
      iid: 1,
      title: "Disk full on db-1",
      description: "sda1 at 99%",
      severity: "high",
      monitoring_tool: "Opsgenie Alert API",
      payload_format: "opsgenie",
      // Opsgenie's `source`, which Alertmanager fills with its own page of the alerts.
      source_links: [{ label: "Source", url: `${alertmanagerUrl}/#/alerts?receiver=gitlab-compatible` }],
    });

    await postToAlertmanager(alertmanagerUrl, { alertname, startsAt, endsAt: new Date(Date.now() - 1_000) });
    const closed = await withOutput(waitFor("the close by alias to arrive", 30_000, () => ours("resolved")));
    expect(closed).toMatchObject({ iid: 1, title: "Disk full on db-1", ended_at: expect.any(String) });
    expect(await listAlerts(request, owner.token, project.id)).toHaveLength(1);
  });
});
