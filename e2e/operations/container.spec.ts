import { expect, request as playwrightRequest, test, type APIRequestContext, type TestInfo } from "@playwright/test";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { uniqueName } from "../support/api";
import { alertsPath, bearer, integrationsPath, postAlert, receiverPath, type Alert, type Integration } from "../support/alerts";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";

/**
 * The image the Dockerfile builds, run as an operator runs it: on a volume, signed into with the root password it was
 * given, a project created, pushed to with git and sent an alert; then stopped as `docker stop` stops it, started
 * again, and everything is still there.
 *
 * No image can be pulled here, so the test makes the base image itself from Debian's packages (mmdebstrap: Node.js and
 * git from Debian trixie), with this machine's npm (the lock file's, 11) and trusted certificates (npm reaches the
 * registry through whatever this machine trusts), and builds the Dockerfile on it with podman. The base is kept under
 * a tag naming what went into it, so a rerun on the same machine skips it; everything else the test makes it removes.
 */
const podman = "/usr/bin/podman";
const mmdebstrap = "/usr/bin/mmdebstrap";
const rootPassword = "container-root-password";
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 9;
const baseURL = `http://127.0.0.1:${port}`;

test("the image builds, serves a push and an alert from its volume, stops on SIGTERM and keeps all of it", async ({}, testInfo) => {
  test.skip(
    !existsSync(podman) || !existsSync(mmdebstrap),
    `podman or mmdebstrap is not installed: install Debian's podman, runc and mmdebstrap (apt-get install -y podman runc mmdebstrap)`,
  );
  test.skip(process.getuid?.() !== 0, "builds its base image and runs podman as root, which this account is not");
  // Cold, on two cores busy with other work: 5.5 minutes for the base, 7 for the image; a rerun skips the base.
  test.setTimeout(40 * 60_000);

  const podmanRun = new Podman(testInfo);
  const name = uniqueName("gitlab-compatible-test").replaceAll("_", "-");
  const image = `localhost/${name}:latest`;
  const volume = `${name}-data`;
  const git = new GitSandbox();
  let api: APIRequestContext | undefined;
  try {
    const base = await test.step("base image", () => podmanRun.baseImage());
    await test.step("build", async () => {
      // The host's npm cache, mounted as an overlay (writes stay in the build): npm ci then downloads nothing that
      // this machine's own `npm install` already fetched.
      const npmCache = spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim();
      await podmanRun.ok(["build", "--format", "docker", "--layers=false", "--build-arg", `BASE_IMAGE=${base}`,
        "--volume", `${npmCache}:/root/.npm:O`, "--tag", image, "."], { nice: true });
    });

    const [{ Config: config, Healthcheck: healthcheck }] = JSON.parse(await podmanRun.ok(["image", "inspect", image])) as [ImageInspection];
    expect(config.User).toBe("gitlab");
    expect(Object.keys(config.ExposedPorts)).toEqual(["3000/tcp"]);
    expect(Object.keys(config.Volumes)).toEqual(["/data"]);
    expect(config.StopSignal).toBe("SIGTERM");
    expect(healthcheck.Test[0]).toBe("CMD");

    await podmanRun.ok(["volume", "create", volume]);
    await podmanRun.ok(["create", "--name", name, "--publish", `127.0.0.1:${port}:3000`, "--volume", `${volume}:/data`,
      // Health checks are run by the test: podman's timer for them needs systemd, which these machines do not run.
      "--health-interval", "disable",
      "--env", `INITIAL_ROOT_PASSWORD=${rootPassword}`, "--env", `EXTERNAL_URL=${baseURL}`, image]);
    await podmanRun.startHealthy(name);
    expect(await podmanRun.ok(["exec", name, "id", "-un"])).toBe("gitlab");
    // The operator's command line reaches the server through its socket on the volume, as the server's user.
    expect(await podmanRun.ok(["exec", name, "node", "lib/operator/admin-command.mjs", "unlock", "root"])).toBe(
      "root can sign in again: the failed attempts that locked the account are forgotten.",
    );

    api = await playwrightRequest.newContext({ baseURL });
    const signIn = await api.post("/oauth/token", { form: { grant_type: "password", username: "root", password: rootPassword } });
    expect(signIn.status(), await signIn.text()).toBe(200);
    const { access_token: token } = (await signIn.json()) as { access_token: string };
    const auth = { Authorization: `Bearer ${token}` };

    const created = await api.post("/api/v4/projects", { headers: auth, data: { name: "Kept" } });
    expect(created.status(), await created.text()).toBe(201);
    const project = (await created.json()) as { id: number; path_with_namespace: string };
    expect(project.path_with_namespace).toBe("root/kept");

    const remote = remoteUrl(baseURL, project.path_with_namespace, { password: token });
    const work = await pushMain(git, remote, 2);
    const pushed = await git.ok(["rev-parse", "HEAD"], work);

    const integrationCreated = await api.post(integrationsPath(project.id), { headers: auth, data: { name: "Monitor", type: "http", active: true } });
    expect(integrationCreated.status(), await integrationCreated.text()).toBe(201);
    const integration = (await integrationCreated.json()) as Integration;
    const received = await postAlert(api, receiverPath(integration), { title: "Disk full on db-1", severity: "critical" }, bearer(integration.token));
    expect(received.status(), await received.text()).toBe(200);
    expect(await received.json()).toEqual([{ iid: 1, title: "Disk full on db-1" }]);

    const keptState = async () => {
      const projectAnswer = await api!.get(`/api/v4/projects/${project.id}`, { headers: auth });
      const alerts = await api!.get(alertsPath(project.id), { headers: auth });
      const events = await api!.get(`/api/v4/projects/${project.id}/events`, { headers: auth });
      for (const answer of [projectAnswer, alerts, events]) expect(answer.status(), `${answer.url()}: ${await answer.text()}`).toBe(200);
      return { project: await projectAnswer.json(), alerts: (await alerts.json()) as Alert[], events: (await events.json()) as Event[] };
    };
    const before = await keptState();
    expect(before.alerts.map(({ iid, title, severity, status }) => ({ iid, title, severity, status }))).toEqual([
      { iid: 1, title: "Disk full on db-1", severity: "critical", status: "triggered" },
    ]);
    expect(before.events.map(({ action_name, push_data }) => ({ action_name, commit_to: push_data?.commit_to ?? null }))).toEqual([
      { action_name: "pushed new", commit_to: pushed },
      { action_name: "created", commit_to: null },
    ]);

    await test.step("stop and start again", async () => {
      const stopping = Date.now();
      await podmanRun.ok(["stop", "--time", "10", name]);
      // The server stopped by itself on SIGTERM (143) once its work was done, not killed when the 10 s ran out (137).
      expect(await podmanRun.ok(["inspect", "--format", "{{.State.ExitCode}}", name])).toBe("143");
      expect(Date.now() - stopping).toBeLessThan(9_000);
      expect((await podmanRun.ok(["logs", name])).trimEnd().split("\n").at(-1)).toBe("Stopped");
      await podmanRun.startHealthy(name);
    });

    expect(await keptState()).toEqual(before);
    await git.ok(["clone", "--quiet", remote, git.dir("clone")]);
    expect(await git.ok(["rev-parse", "HEAD"], git.dir("clone"))).toBe(pushed);
  } finally {
    await api?.dispose();
    git.dispose();
    await podmanRun.run(["rm", "--force", "--time", "0", name]);
    await podmanRun.run(["volume", "rm", "--force", volume]);
    await podmanRun.run(["rmi", "--force", image]);
    podmanRun.dispose();
  }
});

interface ImageInspection {
  Config: { User: string; ExposedPorts: Record<string, unknown>; Volumes: Record<string, unknown>; StopSignal: string };
  Healthcheck: { Test: string[] };
}

interface Event {
  action_name: string;
  push_data?: { commit_to: string | null };
}

/**
 * podman as root, with the settings these machines need (cgroup v1, where crun cannot set resource limits: runc,
 * cgroupfs, no default ulimits), each command's output appended to the test's log file.
 */
class Podman {
  private readonly settings = mkdtempSync(path.join(tmpdir(), "e2e-podman-"));
  private readonly logFile: string;

  constructor(testInfo: TestInfo) {
    writeFileSync(
      path.join(this.settings, "containers.conf"),
      '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n',
    );
    this.logFile = testInfo.outputPath("podman.log");
  }

  /** Runs a command (podman unless told otherwise); never throws. `nice`: below the other tests' servers in priority. */
  run(
    args: string[],
    options: { program?: string; nice?: boolean; stdin?: NodeJS.ReadableStream } = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const program = options.program ?? podman;
    const [command, commandArgs] = options.nice ? ["nice", ["-n", "10", program, ...args]] : [program, args];
    const log = createWriteStream(this.logFile, { flags: "a" });
    log.write(`$ ${program} ${args.join(" ")}\n`);
    return new Promise((resolve) => {
      const child = spawn(command, commandArgs, {
        env: { ...process.env, CONTAINERS_CONF: path.join(this.settings, "containers.conf") },
        stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      });
      if (options.stdin) options.stdin.pipe(child.stdin!);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr.push(chunk);
        log.write(chunk);
      });
      child.on("close", (code) => {
        const out = Buffer.concat(stdout).toString("utf8");
        log.end(`${out.length > 4000 ? `${out.slice(0, 4000)}…\n` : out}[exit ${code}]\n`);
        resolve({ code, stdout: out, stderr: Buffer.concat(stderr).toString("utf8") });
      });
    });
  }

  /** Runs a command and fails the test with its own words unless it succeeds; answers its output, trimmed. */
  async ok(args: string[], options: Parameters<Podman["run"]>[1] = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) throw new Error(`${path.basename(options.program ?? podman)} ${args[0]} failed (${result.code}): ${result.stderr.slice(-4000)}`);
    return result.stdout.trim();
  }

  /**
   * Debian trixie's Node.js (20.19) and git, with this machine's npm and trusted certificates, imported as an image
   * tagged by everything that went into it.
   */
  async baseImage(): Promise<string> {
    const npm = path.dirname(path.dirname(realpathSync(spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim())));
    const certificates = process.env.SSL_CERT_FILE ?? "/etc/ssl/certs/ca-certificates.crt";
    const args = [
      "--quiet", "--variant=minbase", "--include=nodejs,git,ca-certificates",
      // No documentation, manuals or translations: less to unpack.
      "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*",
      `--customize-hook=copy-in ${certificates} /etc/ssl/certs`,
      '--customize-hook=mkdir -p "$1/usr/lib/node_modules"',
      `--customize-hook=copy-in ${npm} /usr/lib/node_modules`,
      '--customize-hook=ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/bin/npm"',
      '--customize-hook=ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/bin/npx"',
      "trixie", "-", "http://deb.debian.org/debian",
    ];
    const npmVersion = (JSON.parse(readFileSync(path.join(npm, "package.json"), "utf8")) as { version: string }).version;
    const contents = createHash("sha256").update(JSON.stringify([args, npmVersion])).update(readFileSync(certificates)).digest("hex");
    const tag = `localhost/gitlab-compatible-service-test-base:${contents.slice(0, 16)}`;
    if ((await this.run(["image", "exists", tag])).code === 0) return tag;

    const debootstrap = spawn("nice", ["-n", "10", mmdebstrap, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const debootstrapErrors: Buffer[] = [];
    debootstrap.stderr.on("data", (chunk: Buffer) => debootstrapErrors.push(chunk));
    const debootstrapExit = new Promise<number | null>((resolve) => debootstrap.on("close", resolve));
    const imported = await this.run(["import", "-", tag], { stdin: debootstrap.stdout });
    const debootstrapCode = await debootstrapExit;
    if (debootstrapCode !== 0) throw new Error(`mmdebstrap failed (${debootstrapCode}): ${Buffer.concat(debootstrapErrors).toString("utf8").slice(-4000)}`);
    if (imported.code !== 0) throw new Error(`podman import failed (${imported.code}): ${imported.stderr}`);
    return tag;
  }

  /** Starts the container and waits until the image's own health check passes. */
  async startHealthy(name: string): Promise<void> {
    await this.ok(["start", name]);
    await expect
      .poll(async () => (await this.run(["healthcheck", "run", name])).code, { timeout: 180_000, intervals: [1_000] })
      .toBe(0);
    expect(await this.ok(["inspect", "--format", "{{.State.Health.Status}}", name])).toBe("healthy");
  }

  dispose(): void {
    rmSync(this.settings, { recursive: true, force: true });
  }
}
