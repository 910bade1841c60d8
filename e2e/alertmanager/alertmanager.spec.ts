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

function alertmanagerConfig(webhookUrl: string, key: string): string {
  // JSON is YAML: no YAML library needed, and every string is quoted safely.
  return JSON.stringify(
    {
      route: { receiver: "gitlab-compatible", group_by: ["alertname"], group_wait: "1s", group_interval: "1s", repeat_interval: "1h" },
      receivers: [
        {
          name: "gitlab-compatible",
          webhook_configs: [{ url: webhookUrl, send_resolved: true, http_config: { authorization: { type: "Bearer", credentials: key } } }],
        },
      ],
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

  test("delivers a firing alert that appears, then its resolution that resolves it", async ({ request, baseURL }) => {
    test.setTimeout(90_000);
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const integration = await createIntegration(request, owner.token, project.id, { type: "prometheus", name: "Prometheus" });

    workDir = await mkdtemp(path.join(tmpdir(), "alertmanager-e2e-"));
    const configFile = path.join(workDir, "alertmanager.yml");
    await writeFile(configFile, alertmanagerConfig(`${baseURL}/${project.path_with_namespace}/prometheus/alerts/notify.json`, integration.token));
    const port = await freePort();
    const alertmanagerUrl = `http://127.0.0.1:${port}`;
    alertmanager = spawn(
      alertmanagerPath,
      [
        `--config.file=${configFile}`,
        `--storage.path=${path.join(workDir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
        "--log.level=debug",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    alertmanager.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    alertmanager.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor("Alertmanager to be ready", 20_000, async () => {
      const ready = await fetch(`${alertmanagerUrl}/-/ready`);
      return ready.ok ? true : undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });

    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alertname = `DiskFull_${Date.now()}`;
    const postToAlertmanager = async (endsAt: Date) => {
      const response = await fetch(`${alertmanagerUrl}/api/v2/alerts`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify([
          {
            labels: { alertname, severity: "page", instance: "db-1" },
            annotations: { summary: "Disk full on db-1", description: "sda1 at 99%" },
            startsAt,
            endsAt: endsAt.toISOString(),
            generatorURL: "http://prometheus.invalid/graph?g0.expr=disk_used%3E0.99",
          },
        ]),
      });
      expect(response.status, await response.text()).toBe(200);
    };

    const findOurs = async (status: string): Promise<Alert | undefined> => {
      const alerts = await listAlerts(request, owner.token, project.id);
      return alerts.find((alert) => alert.title === "Disk full on db-1" && alert.status === status);
    };

    await postToAlertmanager(new Date(Date.now() + 60 * 60_000));
    const firing = await waitFor("the firing alert to arrive", 30_000, () => findOurs("triggered")).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
    expect(firing).toMatchObject({
      iid: 1,
      status: "triggered",
      severity: "high",
      monitoring_tool: "Prometheus",
      description: "sda1 at 99%",
      started_at: startsAt,
      ended_at: null,
    });

    await postToAlertmanager(new Date(Date.now() - 1_000));
    const resolved = await waitFor("the resolution to arrive", 30_000, () => findOurs("resolved")).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
    expect(resolved).toMatchObject({ iid: 1, status: "resolved", ended_at: expect.any(String) });
    // One alert, resolved in place: the resolution did not open another.
    expect(await listAlerts(request, owner.token, project.id)).toHaveLength(1);
  });
});
